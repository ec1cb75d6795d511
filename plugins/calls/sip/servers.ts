// Starts and stops the call server on loopback: rtpengine in userspace (no kernel module, no root)
// and Kamailio with the config of ./kamailio.cfg filled in. Used by `npm run sip:up` / `sip:down`
// (./cli.ts, detached, pid files under the run directory) and by the tests (attached children,
// stopped with the test). Nothing here is imported by the web app: `npm start` runs without it.
import { randomBytes } from "node:crypto";
import dgram from "node:dgram";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { recordingDir } from "./recording-dir";
import { daemonGroup, freePort, stopPidFiles, tcpAnswers, waitFor } from "~/ops/daemons";

export { freePort };

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
  /** the product's DID hook (whom a DID rings); by default the auth hook's sibling /hooks/sip/did */
  didUrl?: string;
  /** the product's outbound hook (where an agent's call to an outside number goes); by default the auth hook's sibling /hooks/sip/outbound */
  outboundUrl?: string;
  /**
   * The SIP trunk, known by the address its requests come from: "ip" or "ip:port" (UDP). Its
   * INVITEs go to the DIDs' queues without agents' credentials. None: no calls from a trunk.
   */
  trunk?: string;
  /** where the product's voicemail listens (host:port, UDP); by default 127.0.0.1:VOICEMAIL_SIP_PORT (5072) */
  voicemail?: string;
  hookSecret: string;
  /** where rtpengine writes its call recordings (pcap); by default the product's recordingDir() */
  recordingDir?: string;
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
  recordingDir: string;
  stop(): Promise<void>;
  /** Kamailio's and rtpengine's output so far (attached mode): for a failing test's message */
  logs(): string;
}

/** The config's test of "this request comes from the trunk" for a trunk address "ip" or "ip:port". */
export function trunkMatch(trunk: string | undefined) {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})(?::(\d{1,5}))?$/.exec((trunk ?? "").trim());
  if (!(trunk ?? "").trim()) return '$proto == "none"';
  if (!m) throw new Error(`SIP_TRUNK: "${trunk}" is not an IPv4 address with an optional port`);
  return `$proto == "udp" && $si == "${m[1]}"${m[2] ? ` && $sp == ${Number(m[2])}` : ""}`;
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
    DID_URL: options.didUrl ?? options.authUrl.replace(/\/auth$/, "/did"),
    OUTBOUND_URL: options.outboundUrl ?? options.authUrl.replace(/\/auth$/, "/outbound"),
    TRUNK_MATCH: trunkMatch(options.trunk ?? process.env.SIP_TRUNK),
    VOICEMAIL: options.voicemail ?? `${process.env.VOICEMAIL_SIP_HOST || listen}:${process.env.VOICEMAIL_SIP_PORT || 5072}`,
    HOOK_SECRET: options.hookSecret,
    PIKE_DENSITY: options.pikeDensity ?? 30,
  });
  const recordings = path.resolve(options.recordingDir ?? recordingDir());
  fs.mkdirSync(recordings, { recursive: true });
  const cfgFile = path.join(runDir, "kamailio.cfg");
  fs.writeFileSync(cfgFile, config, { mode: 0o600 });

  const detached = Boolean(options.detached);
  const { children, run, stop, logs } = daemonGroup(runDir, detached);
  const rtpPid = path.join(runDir, "rtpengine.pid");
  const kamPid = path.join(runDir, "kamailio.pid");
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
        `--recording-dir=${recordings}`,
        "--recording-method=pcap",
      ],
      "rtpengine.log",
    );
    await waitFor(() => rtpenginePong(listen, ngPort), "rtpengine");
    // -DD: no fork (the process we spawned is Kamailio); -E: log to stderr (its log file in sip:up)
    run(KAMAILIO_BIN, ["-f", cfgFile, "-P", kamPid, "-Y", runDir, "-m", "64", "-M", "8", "-DD", "-E"], "kamailio.log");
    await waitFor(() => tcpAnswers(listen, wsPort), "Kamailio");
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}\n${logs()}`);
  }
  if (detached) {
    fs.writeFileSync(rtpPid, String(children[0].pid));
    fs.writeFileSync(kamPid, String(children[1].pid));
  }
  return { listen, sipPort, wsPort, domain, runDir, recordingDir: recordings, stop, logs };
}

/** Stops the daemons `sip:up` started (by their pid files); true when something was running. */
export function stopSipDaemons(runDir: string) {
  return stopPidFiles(runDir, ["kamailio.pid", "rtpengine.pid"]);
}
