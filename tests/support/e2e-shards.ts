// `npm run test:e2e:shards`: the browser suite in E2E_SHARDS (default 2) playwright processes at once, each
// with its own server, database, ports and output folder, so nothing one shard writes is seen by the
// other. Most of a browser test's time is spent waiting (for the server, the socket, a SIP
// registration), so two shards on two cores finish in well under the time of one.
// Spec files are dealt to the shards by their measured time (tests/e2e/durations.json, seconds of
// both projects; a spec not in it counts as DEFAULT_SECONDS), longest first, each to the shard with
// the least so far. `npx playwright test` still runs everything in one process.
import fs from "node:fs";
import path from "node:path";
import { spawn } from "node:child_process";

const DEFAULT_SECONDS = 30;
/** A shard's ports: its server's port and up to +91 (playwright.config.ts, the specs' own servers). */
const PORT_STEP = 110;
const BASE_PORT = Number(process.env.E2E_PORT || 3210);
const shards = Math.max(1, Number(process.env.E2E_SHARDS || 2));
// arguments after `--` (e.g. `-- --grep kanban`) go to every shard
const extra = process.argv.slice(2);

const durations: Record<string, number> = JSON.parse(fs.readFileSync("tests/e2e/durations.json", "utf8"));
const specs = fs
  .readdirSync("tests/e2e")
  .filter((f) => f.endsWith(".spec.ts"))
  .map((f) => ({ file: path.join("tests/e2e", f), seconds: durations[f] ?? DEFAULT_SECONDS }))
  .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));

const bins = Array.from({ length: shards }, () => ({ seconds: 0, files: [] as string[] }));
for (const spec of specs) {
  const least = bins.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  least.seconds += spec.seconds;
  least.files.push(spec.file);
}

const runs = bins.map((bin, i) => {
  const port = BASE_PORT + i * PORT_STEP;
  console.log(`[shard ${i + 1}] ${bin.files.length} spec files, about ${Math.round(bin.seconds / 60)} min measured, port ${port}`);
  const child = spawn("npx", ["playwright", "test", ...extra, ...bin.files.sort()], {
    env: { ...process.env, E2E_PORT: String(port), E2E_OUTPUT_DIR: `test-results/shard-${i + 1}`, E2E_DATA_DIR: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const prefix = (stream: NodeJS.ReadableStream, out: NodeJS.WriteStream) => {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) out.write(`[${i + 1}] ${line}\n`);
    });
    stream.on("end", () => rest && out.write(`[${i + 1}] ${rest}\n`));
  };
  prefix(child.stdout!, process.stdout);
  prefix(child.stderr!, process.stderr);
  return new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? 1)));
});

const codes = await Promise.all(runs);
codes.forEach((code, i) => console.log(`[shard ${i + 1}] ${code === 0 ? "passed" : `failed (exit ${code})`}`));
process.exit(codes.every((c) => c === 0) ? 0 : 1);
