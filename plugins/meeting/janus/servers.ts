// Starts and stops the meeting's media servers on loopback: Janus (janus-gateway, Debian `janus`)
// with only its VideoRoom plugin and HTTP transport, and, when asked, coturn (Debian `coturn`)
// with the TURN REST API's shared secret. Used by `npm run meeting:up` / `meeting:down` (./cli.ts,
// detached, pid files under the run directory) and by the tests and bench/meetings (attached
// children, stopped with them). Nothing here is imported by the web app: `npm start` runs without
// it (meetings are then mesh, and the page says TURN is not configured).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { daemonGroup, stopPidFiles, tcpAnswers, waitFor } from "~/ops/daemons";

export const JANUS_BIN = process.env.JANUS_BIN || "/usr/bin/janus";
export const JANUS_LIB = process.env.JANUS_LIB || "/usr/lib/x86_64-linux-gnu/janus";
export const TURNSERVER_BIN = process.env.TURNSERVER_BIN || "/usr/bin/turnserver";

export function janusPresent() {
  return (
    fs.existsSync(JANUS_BIN) &&
    fs.existsSync(path.join(JANUS_LIB, "plugins/libjanus_videoroom.so")) &&
    fs.existsSync(path.join(JANUS_LIB, "transports/libjanus_http.so"))
  );
}
export const coturnPresent = () => fs.existsSync(TURNSERVER_BIN);

export function missingJanusMessage() {
  return `The meeting media server is not installed (${JANUS_BIN} or its VideoRoom/HTTP modules under ${JANUS_LIB} missing): apt-get install janus`;
}
export function missingCoturnMessage() {
  return `The TURN server is not installed (${TURNSERVER_BIN} missing): apt-get install coturn`;
}

export interface MediaServerOptions {
  runDir: string;
  listen?: string;
  /** Janus's HTTP API port (JANUS_HTTP_PORT, default 8088) */
  janusPort?: number;
  rtpPortMin?: number;
  rtpPortMax?: number;
  /** also start coturn on this port with this secret */
  turn?: { port: number; secret: string; realm?: string; relayMin?: number; relayMax?: number };
  detached?: boolean;
}

export interface MediaServers {
  janusUrl: string;
  turnUrl: string | null;
  stop(): Promise<void>;
  logs(): string;
  pids(): number[];
}

const here = () => path.dirname(fileURLToPath(import.meta.url));

/** A template of this folder with every __NAME__ filled in; throws on one left over. */
export function renderTemplate(file: string, values: Record<string, string | number>) {
  let text = fs.readFileSync(path.join(here(), file), "utf8");
  for (const [k, v] of Object.entries(values)) text = text.split(`__${k}__`).join(String(v));
  const left = text.match(/__[A-Z_]+__/);
  if (left) throw new Error(`${file}: ${left[0]} has no value`);
  return text;
}

async function janusInfo(url: string) {
  try {
    const r = await fetch(`${url}/info`, { signal: AbortSignal.timeout(1000) });
    return ((await r.json()) as { janus?: string }).janus === "server_info";
  } catch {
    return false;
  }
}

/** Peers coturn never relays to (the ranges its own security notes list: private, loopback, link-local, shared, documentation and reserved). */
const DENIED_PEERS = [
  "0.0.0.0-0.255.255.255",
  "10.0.0.0-10.255.255.255",
  "100.64.0.0-100.127.255.255",
  "127.0.0.0-127.255.255.255",
  "169.254.0.0-169.254.255.255",
  "172.16.0.0-172.31.255.255",
  "192.0.0.0-192.0.0.255",
  "192.0.2.0-192.0.2.255",
  "192.88.99.0-192.88.99.255",
  "192.168.0.0-192.168.255.255",
  "198.18.0.0-198.19.255.255",
  "198.51.100.0-198.51.100.255",
  "203.0.113.0-203.0.113.255",
  "240.0.0.0-255.255.255.255",
  "::1",
  "64:ff9b::-64:ff9b::ffff:ffff",
  "::ffff:0.0.0.0-::ffff:255.255.255.255",
  "100::-100::ffff:ffff:ffff:ffff",
  "2001::-2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
  "2002::-2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
  "fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
  "fe80::-febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
];

/** coturn's command line: TURN over UDP/TCP on loopback, the TURN REST API's shared secret, no TLS, no CLI. */
export function coturnArgs(t: { listen: string; port: number; secret: string; realm?: string; relayMin: number; relayMax: number }) {
  return [
    "-n",
    `--listening-ip=${t.listen}`,
    `--relay-ip=${t.listen}`,
    `--listening-port=${t.port}`,
    "--use-auth-secret",
    `--static-auth-secret=${t.secret}`,
    `--realm=${t.realm ?? "omnidesk.local"}`,
    `--min-port=${t.relayMin}`,
    `--max-port=${t.relayMax}`,
    "--no-tls",
    "--no-dtls",
    "--no-cli",
    // browsers and relays share this machine in tests; a deployment on a public address drops it
    ...(t.listen.startsWith("127.") ? ["--allow-loopback-peers"] : []),
    // a relay for the meeting's media, not a way into the network behind it: no private, reserved
    // or multicast peer but the media servers' own address (Janus listens there)
    "--no-multicast-peers",
    ...DENIED_PEERS.map((range) => `--denied-peer-ip=${range}`),
    `--allowed-peer-ip=${t.listen}`,
    "--fingerprint",
    "--log-file=stdout",
    "--simple-log",
  ];
}

export async function startMediaServers(options: MediaServerOptions): Promise<MediaServers> {
  if (!janusPresent()) throw new Error(missingJanusMessage());
  const listen = options.listen ?? "127.0.0.1";
  const janusPort = options.janusPort ?? 8088;
  const rtpMin = options.rtpPortMin ?? 40000 + Math.floor(Math.random() * 100) * 100;
  const rtpMax = options.rtpPortMax ?? rtpMin + 999;
  const runDir = path.resolve(options.runDir);
  // Janus loads every module of its folders: folders of links to the two it needs
  for (const [kind, file] of [
    ["plugins", "libjanus_videoroom.so"],
    ["transports", "libjanus_http.so"],
  ]) {
    const dir = path.join(runDir, kind);
    fs.mkdirSync(dir, { recursive: true });
    const link = path.join(dir, file);
    fs.rmSync(link, { force: true });
    fs.symlinkSync(path.join(JANUS_LIB, kind, file), link);
  }
  for (const empty of ["events", "loggers"]) fs.mkdirSync(path.join(runDir, empty), { recursive: true });
  const values = { RUNDIR: runDir, LISTEN: listen, HTTP_PORT: janusPort, RTP_MIN: rtpMin, RTP_MAX: rtpMax };
  fs.writeFileSync(path.join(runDir, "janus.jcfg"), renderTemplate("janus.jcfg", values));
  fs.writeFileSync(path.join(runDir, "janus.transport.http.jcfg"), renderTemplate("janus.transport.http.jcfg", values));
  fs.writeFileSync(path.join(runDir, "janus.plugin.videoroom.jcfg"), renderTemplate("janus.plugin.videoroom.jcfg", values));

  const { children, run, stop, logs } = daemonGroup(runDir, Boolean(options.detached));
  const janusUrl = `http://${listen}:${janusPort}/janus`;
  let turnUrl: string | null = null;
  try {
    run(JANUS_BIN, ["-C", path.join(runDir, "janus.jcfg"), "-F", runDir, "-P", path.join(runDir, "plugins")], "janus.log");
    await waitFor(() => janusInfo(janusUrl), "Janus", 15000);
    if (options.turn) {
      if (!coturnPresent()) throw new Error(missingCoturnMessage());
      const t = options.turn;
      run(TURNSERVER_BIN, coturnArgs({ ...t, listen, relayMin: t.relayMin ?? rtpMax + 1, relayMax: t.relayMax ?? rtpMax + 200 }), "turnserver.log");
      await waitFor(() => tcpAnswers(listen, t.port), "coturn", 15000);
      turnUrl = `turn:${listen}:${t.port}?transport=udp`;
    }
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${logs()}`);
  }
  if (options.detached) {
    fs.writeFileSync(path.join(runDir, "janus.pid"), String(children[0].pid));
    if (children[1]) fs.writeFileSync(path.join(runDir, "turnserver.pid"), String(children[1].pid));
  }
  return { janusUrl, turnUrl, stop, logs, pids: () => children.map((c) => c.pid!).filter(Boolean) };
}

/** Stops what `meeting:up` started (by its pid files); true when something was running. */
export function stopMediaDaemons(runDir: string) {
  return stopPidFiles(runDir, ["turnserver.pid", "janus.pid"]);
}
