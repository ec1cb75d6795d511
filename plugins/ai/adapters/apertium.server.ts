// The offline translator: Apertium from Debian (apt install apertium apertium-<pair>), rule-based,
// on this machine, nothing sent anywhere. Debian bookworm has no pair between English and any of
// the product's other languages (Malay, Chinese, Japanese, Korean); it has, among others,
// English-Spanish (apertium-eng-spa) and Indonesian-Malay (apertium-ind-zlm), which serve
// customers who write in Spanish or Indonesian. A pair that is not installed is said plainly.
// Each text is translated by its own `apertium` process (no shell), read from a temp file (Node's
// stdin pipes are sockets, which Apertium's /dev/stdin cannot open), with a time and an output limit.
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Apertium's language codes (ISO 639-3, Malay is zlm) for the two-letter ones the product uses. */
export const APERTIUM_CODES: Record<string, string> = {
  en: "eng",
  ms: "zlm",
  id: "ind",
  zh: "zho",
  ja: "jpn",
  ko: "kor",
  es: "spa",
  ca: "cat",
  pt: "por",
  fr: "fra",
  it: "ita",
  gl: "glg",
  eu: "eus",
  eo: "epo",
  ro: "ron",
  oc: "oci",
  is: "isl",
  mk: "mkd",
  hi: "hin",
  ur: "urd",
  an: "arg",
  sc: "srd",
};

const BINARY = process.env.APERTIUM_BIN || "apertium";
export const APERTIUM_TIMEOUT_MS = 10_000;
const MAX_OUTPUT = 256 * 1024;

let directions: Promise<Set<string>> | null = null;

/** The translation directions installed (`apertium -l`), read once; none when Apertium is not installed. */
export function installedDirections(): Promise<Set<string>> {
  directions ??= new Promise((resolve) => {
    execFile(BINARY, ["-l"], { timeout: APERTIUM_TIMEOUT_MS }, (error, stdout) =>
      resolve(
        error
          ? new Set()
          : new Set(
              stdout
                .split("\n")
                .map((l) => l.trim())
                .filter(Boolean),
            ),
      ),
    );
  });
  return directions;
}

/** Forgets the directions read (tests that install or remove a pair). */
export function forgetDirections() {
  directions = null;
}

/** The installed direction from `source` to `target` (two-letter codes), or null. */
export async function apertiumDirection(source: string, target: string): Promise<string | null> {
  const from = APERTIUM_CODES[source];
  const to = APERTIUM_CODES[target];
  if (!from || !to || from === to) return null;
  const installed = await installedDirections();
  // bookworm's pairs name the languages with three letters; a few older ones with two
  for (const name of [`${from}-${to}`, `${source}-${target}`]) if (installed.has(name)) return name;
  return null;
}

export class ApertiumError extends Error {}

/** One text through one direction. */
export async function apertiumTranslate(text: string, direction: string): Promise<string> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "omnidesk-apertium-"));
  const input = path.join(dir, "in.txt");
  try {
    await fs.promises.writeFile(input, text, "utf8");
    return await run(input, direction);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

function run(input: string, direction: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // -u: unknown words as they are, without Apertium's '*' marks
    // its own process group: apertium is a script running a pipeline, which a timeout ends whole
    const child = spawn(BINARY, ["-u", direction, input], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    const kill = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    let out = "";
    let failed: Error | null = null;
    const timer = setTimeout(() => {
      failed = new ApertiumError("timeout");
      kill();
    }, APERTIUM_TIMEOUT_MS);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      if (out.length > MAX_OUTPUT) {
        failed = new ApertiumError("output too large");
        kill();
      }
    });
    child.stderr.resume();
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(new ApertiumError(error.message));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (failed) reject(failed);
      else if (code !== 0) reject(new ApertiumError(`apertium exited with ${code}`));
      else resolve(out.trim());
    });
  });
}
