// The built server (build/server.js) as real processes on loopback, for the chaos tests: started
// on a test database, killed, stopped by signal, restarted on the same data; plus the client side
// (keep-alive HTTP, signed session cookies) and a Redis server of the test's own to kill.
import { spawn, type ChildProcess } from "node:child_process";
import { startServer, waitHealthy } from "../support/server-process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const SECRET = "chaos-test-session-secret-0123456789abcdef";

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface Node {
  port: number;
  proc: ChildProcess;
  /** Everything it printed. */
  output: () => string;
  exited: Promise<number | null>;
}

/** `healthMs`: how long it may take to answer /healthz (a loaded machine's first start migrates and seeds). */
export async function startNode(env: Record<string, string>, healthMs = 30_000): Promise<Node> {
  const port = await freePort();
  const dataDir = env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-chaos-"));
  const logFile = path.join(dataDir, "server.log");
  const proc = startServer(
    { NODE_ENV: "test", SEED_DEMO: "", LOG_LEVEL: "info", PORT: String(port), DATA_DIR: dataDir, SESSION_SECRET: SECRET, SMTP_URL: "", ...env },
    fs.openSync(logFile, "a"),
  );
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  await waitHealthy(`http://127.0.0.1:${port}`, healthMs);
  return { port, proc, output: () => fs.readFileSync(logFile, "utf8"), exited };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type Answer = { status: number; body: string } | { error: string };

export function get(port: number, pathname: string, agent?: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path: pathname, agent: agent ?? false, timeout: 10_000 }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
  });
}

/** A JSON POST; a connection that fails is an answer too ({error}), never a throw. */
export function postJson(port: number, pathname: string, body: unknown, headers: Record<string, string>, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve) => {
    const data = JSON.stringify(body);
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path: pathname,
        method: "POST",
        agent,
        timeout: 30_000,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data), ...headers },
      },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on("error", (e) => resolve({ error: e.message }));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", (e) => resolve({ error: (e as NodeJS.ErrnoException).code ?? e.message }));
    req.end(data);
  });
}

/** A Redis server of the test's own (the shared one must not be killed), on a free port. */
export async function startRedis(port?: number) {
  port ??= await freePort();
  const proc = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port!, "127.0.0.1", () => (s.end(), resolve(true)));
      s.on("error", () => resolve(false));
    });
    if (up) break;
    await sleep(50);
  }
  return { port, url: `redis://127.0.0.1:${port}`, stop: () => new Promise<void>((r) => (proc.once("exit", () => r()), proc.kill("SIGKILL"))) };
}

/** Polls until `ok` holds; answers how long it took (ms), or throws after `ms`. */
export async function within(ms: number, ok: () => Promise<boolean>) {
  const started = Date.now();
  while (!(await ok().catch(() => false))) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await sleep(100);
  }
  return Date.now() - started;
}
