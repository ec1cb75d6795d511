// A call from the SIP trunk for the DID tests: sipp (Debian sip-tester) as the trunk's caller, from a
// fixed loopback port (the address Kamailio knows the trunk by), speaking a sentence made with
// espeak-ng (raw G.711 u-law) once answered, then hanging up. See trunk-caller.xml.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const SIPP = process.env.SIPP_BIN || "/usr/bin/sipp";
export const sippPresent = () => fs.existsSync(SIPP);
const here = path.dirname(fileURLToPath(import.meta.url));

/** A spoken sentence as raw 8 kHz u-law (espeak-ng, then ffmpeg). */
export function spokenUlaw(text: string, dir: string) {
  const wav = path.join(dir, "said.wav");
  const raw = path.join(dir, "said.ulaw");
  execFileSync("espeak-ng", ["-v", "en", "-w", wav, text]);
  execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-i", wav, "-ar", "8000", "-ac", "1", "-f", "mulaw", raw]);
  return raw;
}

export interface TrunkCall {
  /** sipp's exit: 0 when the call was answered and hung up as scripted */
  done: Promise<{ code: number | null; output: string }>;
  stop(): void;
}

/** Calls `did` through Kamailio at sip (host:port) from 127.0.0.1:localPort as `caller`; talks for talkMs once answered. */
export function trunkCall(o: {
  sip: string;
  did: string;
  caller: string;
  localPort: number;
  mediaPort: number;
  talkMs: number;
  audio: string;
  workDir: string;
}): TrunkCall {
  const scenario = path.join(o.workDir, `trunk-caller-${o.localPort}.xml`);
  const text = fs
    .readFileSync(path.join(here, "trunk-caller.xml"), "utf8")
    .replaceAll("CALLER", o.caller)
    .replaceAll("AUDIO", o.audio)
    .replaceAll("TALK_MS", String(o.talkMs));
  fs.writeFileSync(scenario, text);
  const child = spawn(
    SIPP,
    [
      o.sip,
      "-sf",
      scenario,
      "-s",
      o.did,
      "-i",
      "127.0.0.1",
      "-p",
      String(o.localPort),
      "-mp",
      String(o.mediaPort),
      "-m",
      "1",
      "-l",
      "1",
      "-nostdin",
      "-timeout",
      "90s",
      "-trace_err",
      "-error_file",
      path.join(o.workDir, "sipp-errors.log"),
    ],
    { cwd: o.workDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (d) => (output = (output + d).slice(-20000)));
  child.stderr.on("data", (d) => (output = (output + d).slice(-20000)));
  const done = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once("exit", (code) => {
      const errors = path.join(o.workDir, "sipp-errors.log");
      resolve({ code, output: output + (fs.existsSync(errors) ? fs.readFileSync(errors, "utf8").slice(-4000) : "") });
    }),
  );
  return { done, stop: () => child.exitCode === null && child.kill("SIGTERM") };
}

export const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-trunk-"));
