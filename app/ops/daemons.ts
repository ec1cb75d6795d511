// Running the Debian servers a feature talks to (Kamailio and rtpengine for calls, Janus and coturn
// for meetings) on loopback: as children of a test or bench (their output kept for a failure's
// message) or as detached daemons with pid files (`npm run sip:up`, `npm run meeting:up`). Used by
// the plugins' start scripts only, never by the web app.
import { spawn, type ChildProcess } from "node:child_process";
import dgram from "node:dgram";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

export async function freePort(kind: "tcp" | "udp" = "tcp"): Promise<number> {
  if (kind === "udp") {
    const socket = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
    const port = socket.address().port;
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    return port;
  }
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function waitFor(check: () => Promise<boolean>, what: string, ms = 10000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start within ${ms / 1000} s`);
}

export const tcpAnswers = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, host);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });

/** The children of one start: run() adds one, stop() ends them last first, logs() is their output (attached). */
export function daemonGroup(runDir: string, detached: boolean) {
  const children: ChildProcess[] = [];
  let output = "";
  const run = (bin: string, args: string[], logName: string) => {
    const log = detached ? fs.openSync(path.join(runDir, logName), "a") : "pipe";
    // cwd: a daemon that crashes dumps its core where it runs, which must not be the checkout
    const child = spawn(bin, args, { cwd: runDir, detached, stdio: ["ignore", log, log] });
    if (!detached) {
      child.stdout?.on("data", (d) => (output = (output + d).slice(-400000)));
      child.stderr?.on("data", (d) => (output = (output + d).slice(-400000)));
    } else child.unref();
    children.push(child);
    return child;
  };
  const stop = async () => {
    for (const child of [...children].reverse()) {
      if (child.exitCode !== null || child.signalCode) continue;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null && !child.signalCode) child.kill("SIGKILL");
    }
  };
  return { children, run, stop, logs: () => output };
}

/** Stops the daemons named by pid files under runDir (SIGTERM, SIGKILL after 3 s); true when something was running. */
export async function stopPidFiles(runDir: string, names: string[]) {
  let any = false;
  for (const name of names) {
    const file = path.join(runDir, name);
    if (!fs.existsSync(file)) continue;
    const pid = Number(fs.readFileSync(file, "utf8").trim());
    fs.rmSync(file, { force: true });
    if (!pid) continue;
    try {
      process.kill(pid, "SIGTERM");
      any = true;
      for (let i = 0; i < 30; i++) {
        process.kill(pid, 0);
        await new Promise((r) => setTimeout(r, 100));
      }
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  return any;
}
