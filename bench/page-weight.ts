// Prints the HTML bytes and the gzip JS bytes of the login page and the agent shell.
// Starts its own server on a fresh temporary database (run `npm run build` first).
// Target: the agent shell under 150 KB of gzip JS, and fully usable with none.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { startServer, stopServer, waitHealthy } from "../tests/support/server-process";

const port = Number(process.env.BENCH_PORT || 3390);
const base = `http://localhost:${port}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-"));
const server = startServer({ PORT: String(port), DATA_DIR: dataDir, DATABASE_URL: "", SESSION_SECRET: "bench" });

async function weigh(label: string, cookie = "") {
  const html = await (await fetch(base + "/", { headers: { cookie } })).text();
  const scripts = new Set([...html.matchAll(/(?:src|href)="(\/build\/[^"]+\.js)"/g)].map((m) => m[1]));
  let jsRaw = 0;
  let jsGzip = 0;
  for (const src of scripts) {
    const body = Buffer.from(await (await fetch(base + src)).arrayBuffer());
    jsRaw += body.length;
    jsGzip += gzipSync(body, { level: 9 }).length;
  }
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `${label.padEnd(12)} HTML ${kb(Buffer.byteLength(html))} (gzip ${kb(gzipSync(html).length)}) | JS ${scripts.size} files ${kb(jsRaw)} (gzip ${kb(jsGzip)})`,
  );
  return jsGzip;
}

try {
  await waitHealthy(base);
  const lng = `lng=${Buffer.from(JSON.stringify("en")).toString("base64")}`;
  await weigh("login page", lng);
  const res = await fetch(`${base}/?index`, {
    method: "POST",
    body: new URLSearchParams({ intent: "login", username: "agent", password: process.env.SEED_PASSWORD || "demo1234", type: "agent" }),
    redirect: "manual",
  });
  const sid = res.headers.get("set-cookie")!.split(";")[0];
  const shellJs = await weigh("agent shell", `${sid}; ${lng}`);
  console.log(`agent shell gzip JS target 150 KB: ${shellJs <= 150 * 1024 ? "met" : "NOT met"}`);
} finally {
  await stopServer(server);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
