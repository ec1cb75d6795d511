// Starts and stops the call server on loopback: rtpengine in userspace (no kernel module, no root)
// and Kamailio with the config of ./kamailio.cfg filled in. Used by `npm run sip:up` / `sip:down`
// (./cli.ts, detached, pid files under the run directory) and by the tests (attached children,
// stopped with the test). Nothing here is imported by the web app: `npm start` runs without it.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import dgram from "node:dgram";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const KAMAILIO_BIN = process.env.KAMAILIO_BIN || "/usr/sbin/kamailio";
export const RTPENGINE_BIN = process.env.RTPENGINE_BIN || "/usr/bin/rtpengine";
export const KAMAILIO_MODULES = process.env.KAMAILIO_MODULES || "/usr/lib/x86_64-linux-gnu/kamailio/modules";

/** Both binaries and the modules the config loads are installed. */
export function sipBinariesPresent() {
  return (
    fs.existsSync(KAMAILIO_BIN) &&
    fs.existsSync(RTPENGINE_BIN) &&
    ["websocket.so", "http_client.so", "rtpengine.so", "pike.so"].every((m) => fs.existsSync(path.join(KAMAILIO_MODULES, m)))
  );
}

export function missingBinariesMessage() {
  return `The call server is not installed (${KAMAILIO_BIN}, ${RTPENGINE_BIN} or Kamailio's websocket/http_client modules missing): apt-get install kamailio kamailio-websocket-modules kamailio-utils-modules rtpengine-daemon`;
}

export interface SipOptions {
  /** where config, pid files and logs go */
  runDir: string;
  listen?: string;
  sipPort?: number;
  wsPort?: number;
  rtpengineNgPort?: number;
  rtpPortMin?: number;
  rtpPortMax?: number;
  domain?: string;
  /** the product's auth hook, e.g. http://127.0.0.1:3000/hooks/sip/auth */
  authUrl: string;
  /** the product's call event hook; by default the auth hook's sibling /hooks/sip/event */
  eventUrl?: string;
  hookSecret: string;
  /** requests per address per 2 s before pike blocks it */
  pikeDensity?: number;
  /** detached daemons with pid files (sip:up) instead of children of this process (tests) */
  detached?: boolean;
}

export interface SipServers {
  listen: string;
  sipPort: number;
  wsPort: number;
  domain: string;
  runDir: string;
  stop(): Promise<void>;
  /** Kamailio's and rtpengine's output so far (attached mode): for a failing test's message */
  logs(): string;
}

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

const templatePath = () => path.join(path.dirname(fileURLToPath(import.meta.url)), "kamailio.cfg");

/** The config with every __NAME__ filled in; throws on one left over. */
export function renderKamailioConfig(values: Record<string, string | number>) {
  let text = fs.readFileSync(templatePath(), "utf8");
  for (const [k, v] of Object.entries(values)) text = text.split(`__${k}__`).join(String(v));
  const left = text.match(/__[A-Z_]+__/);
  if (left) throw new Error(`kamailio.cfg: ${left[0]} has no value`);
  return text;
}

async function waitFor(check: () => Promise<boolean>, what: string, ms = 10000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start within ${ms / 1000} s`);
}

const tcpAnswers = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, host);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });

/** rtpengine's ng protocol answers a bencoded ping with pong. */
async function rtpenginePong(host: string, port: number) {
  const socket = dgram.createSocket("udp4");
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 300);
      socket.once("message", (m) => {
        clearTimeout(timer);
        resolve(m.toString().includes("pong"));
      });
      socket.once("error", () => resolve(false));
      socket.send("ping1 d7:command4:pinge", port, host);
    });
  } finally {
    socket.close();
  }
}

export async function startSipServers(options: SipOptions): Promise<SipServers> {
  if (!sipBinariesPresent()) throw new Error(missingBinariesMessage());
  const listen = options.listen ?? "127.0.0.1";
  const sipPort = options.sipPort ?? (await freePort("udp"));
  const wsPort = options.wsPort ?? (await freePort());
  const ngPort = options.rtpengineNgPort ?? (await freePort("udp"));
  const rtpMin = options.rtpPortMin ?? 30000 + Math.floor(Math.random() * 300) * 100;
  const rtpMax = options.rtpPortMax ?? rtpMin + 99;
  const domain = options.domain ?? "omnidesk.local";
  const runDir = path.resolve(options.runDir);
  fs.mkdirSync(runDir, { recursive: true });
  const config = renderKamailioConfig({
    LOG_STDERR: options.detached ? "no" : "yes",
    LISTEN: listen,
    SIP_PORT: sipPort,
    WS_PORT: wsPort,
    DOMAIN: domain,
    RUNDIR: runDir,
    MPATH: KAMAILIO_MODULES,
    NONCE_SECRET: randomBytes(16).toString("hex"),
    RTPENGINE_NG: `${listen}:${ngPort}`,
    AUTH_URL: options.authUrl,
    EVENT_URL: options.eventUrl ?? options.authUrl.replace(/\/auth$/, "/event"),
    HOOK_SECRET: options.hookSecret,
    PIKE_DENSITY: options.pikeDensity ?? 30,
  });
  const cfgFile = path.join(runDir, "kamailio.cfg");
  fs.writeFileSync(cfgFile, config, { mode: 0o600 });

  const children: ChildProcess[] = [];
  let output = "";
  const detached = Boolean(options.detached);
  const run = (bin: string, args: string[], logName: string) => {
    const log = detached ? fs.openSync(path.join(runDir, logName), "a") : "pipe";
    const child = spawn(bin, args, { detached, stdio: ["ignore", log, log] });
    if (!detached) {
      child.stdout?.on("data", (d) => (output = (output + d).slice(-400000)));
      child.stderr?.on("data", (d) => (output = (output + d).slice(-400000)));
    } else child.unref();
    children.push(child);
    return child;
  };

  const rtpPid = path.join(runDir, "rtpengine.pid");
  const kamPid = path.join(runDir, "kamailio.pid");
  const stop = async () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null || child.signalCode) continue;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null && !child.signalCode) child.kill("SIGKILL");
    }
  };
  try {
    run(
      RTPENGINE_BIN,
      [
        "--config-file=none",
        "--table=-1",
        `--interface=${listen}`,
        `--listen-ng=${listen}:${ngPort}`,
        `--port-min=${rtpMin}`,
        `--port-max=${rtpMax}`,
        "--foreground",
        "--log-stderr",
        `--log-level=${process.env.RTPENGINE_LOG_LEVEL || 5}`,
        `--pidfile=${rtpPid}`,
        "--delete-delay=0",
      ],
      "rtpengine.log",
    );
    await waitFor(() => rtpenginePong(listen, ngPort), "rtpengine");
    // -DD: no fork (the process we spawned is Kamailio); -E: log to stderr (its log file in sip:up)
    run(KAMAILIO_BIN, ["-f", cfgFile, "-P", kamPid, "-Y", runDir, "-m", "64", "-M", "8", "-DD", "-E"], "kamailio.log");
    await waitFor(() => tcpAnswers(listen, wsPort), "Kamailio");
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${output}`);
  }
  if (detached) {
    fs.writeFileSync(rtpPid, String(children[0].pid));
    fs.writeFileSync(kamPid, String(children[1].pid));
  }
  return { listen, sipPort, wsPort, domain, runDir, stop, logs: () => output };
}

/** Stops the daemons `sip:up` started (by their pid files); true when something was running. */
export async function stopSipDaemons(runDir: string) {
  let any = false;
  for (const name of ["kamailio.pid", "rtpengine.pid"]) {
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
