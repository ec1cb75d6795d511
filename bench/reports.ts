// Reports on a large database: the omnichannel dashboard over 90 days (whole page, server-drawn
// SVG charts) and the peak memory of the server during a full CSV export of those 90 days.
//   BENCH_DATA_DIR=/tmp/omnidesk-bench npm run bench:reports      (SQLite, seeds 1,000,000 tickets if needed)
//   DATABASE_URL=postgres://... npm run bench:reports             (PostgreSQL)
// Targets: dashboard under 1 s; export memory flat (peak RSS under 200 MB).
// BENCH_ONLY=export skips the dashboard timings.
import fs from "node:fs";
import { performance } from "node:perf_hooks";
import { startServer, stopServer, waitHealthy } from "../tests/support/server-process";
import { setDb } from "../db/client";
import { benchDataDir, benchPgUrl, openBenchDatabase, time } from "./support";
import { refreshFacts } from "../plugins/reports/facts.server";
import { dashboardData } from "../plugins/reports/widgets.server";
import { defaultRange } from "../plugins/reports/reports.server";
import { getWorkspace } from "../app/models/settings.server";

const TICKETS = Number(process.env.BENCH_TICKETS || 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS || 10);
const port = 3392;
const base = `http://localhost:${port}`;
const dataDir = benchDataDir;
const pgUrl = benchPgUrl;
const password = process.env.SEED_PASSWORD || "demo1234";

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
const rssKb = (pid: number, field: "VmRSS" | "VmHWM") =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);

async function prepare() {
  const handle = await openBenchDatabase(TICKETS);
  setDb(handle);
  // the first refresh builds report_facts for every ticket (once; later ones take what changed)
  let t0 = performance.now();
  const written = await refreshFacts(handle);
  console.log(`report_facts refresh: ${written.toLocaleString()} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  t0 = performance.now();
  const again = await refreshFacts(handle);
  console.log(`report_facts refresh with nothing new: ${again} rows in ${(performance.now() - t0).toFixed(1)} ms`);
  if (handle.dialect === "pg") await handle.raw((await import("drizzle-orm")).sql`ANALYZE report_facts`);
  // the model alone: the aggregates of all eight widgets, no drawing
  const { timeZone } = await getWorkspace();
  const range = defaultRange(Date.now(), timeZone, 90);
  const model = await time(
    () => dashboardData({ dashboard: "omnichannel", enabledPlugins: ["reports"], range, interval: "day", now: Date.now(), timeZone, language: "en" }),
    2,
    5,
  );
  console.log(`dashboard data (queries, no drawing), 90 days: median ${model.median.toFixed(0)} ms, p95 ${model.p95.toFixed(0)} ms`);
  await handle.close();
  setDb(undefined);
  return range;
}

async function withServer<T>(fn: (pid: number, cookie: string) => Promise<T>) {
  const server = startServer({
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: pgUrl ?? "",
    SESSION_SECRET: "bench",
    NODE_ENV: "production",
    BASE_URL: base,
    SEED_PASSWORD: password,
  });
  try {
    await waitHealthy(base, 120_000);
    const login = await fetch(`${base}/?index`, {
      method: "POST",
      body: new URLSearchParams({ intent: "login", username: "admin", password, type: "admin" }),
      redirect: "manual",
    });
    if (login.status !== 302) throw new Error(`login failed (${login.status}); set SEED_PASSWORD to the bench database's password`);
    const lng = `lng=${Buffer.from(JSON.stringify("en")).toString("base64")}`;
    return await fn(server.pid!, `${login.headers.get("set-cookie")!.split(";")[0]}; ${lng}`);
  } finally {
    await stopServer(server);
  }
}

const dmy = (ymd: string) => ymd.split("-").reverse().join("-");

async function main() {
  console.log(`reports bench on ${pgUrl ? "PostgreSQL" : `SQLite in ${dataDir}`}, ${TICKETS.toLocaleString()} tickets, ${RUNS} runs`);
  const range = await prepare();
  const query = `start=${dmy(range.start)}&end=${dmy(range.end)}`;

  if (process.env.BENCH_ONLY !== "export")
    await withServer(async (pid, cookie) => {
      const url = `${base}/report/omnichannel?${query}`;
      let bytes = 0;
      const page = await time(
        async () => {
          const res = await fetch(url, { headers: { cookie } });
          if (!res.ok) throw new Error(`${url}: ${res.status}`);
          const html = await res.text();
          bytes = html.length;
          if ((html.match(/class="chart-card/g) ?? []).length !== 8) throw new Error("expected 8 charts");
        },
        3,
        RUNS,
      );
      console.log(
        `omnichannel dashboard page, 90 days, 8 charts as SVG (${(bytes / 1024).toFixed(0)} KB): median ${page.median.toFixed(0)} ms, p95 ${page.p95.toFixed(0)} ms (target < 1000 ms)`,
      );
      const hourly = await time(
        async () => {
          const res = await fetch(`${url}&interval=15m`, { headers: { cookie } });
          await res.text();
        },
        1,
        3,
      );
      console.log(`same at 15-minute intervals (8,640 points): median ${hourly.median.toFixed(0)} ms`);
      console.log(`server peak RSS after the dashboard runs: ${mb(rssKb(pid, "VmHWM"))}`);
    });

  // a fresh server, so its peak RSS is the export's
  await withServer(async (pid, cookie) => {
    const before = rssKb(pid, "VmRSS");
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssKb(pid, "VmRSS"))), 50);
    const t0 = performance.now();
    const res = await fetch(`${base}/report/export?startDate=${range.start}&endDate=${range.end}&step=day&dashboard=dashboard`, { headers: { cookie } });
    if (!res.ok) throw new Error(`export: ${res.status}`);
    let bytes = 0;
    let lines = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines++;
    }
    clearInterval(sampler);
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `full CSV export, 90 days: ${(lines - 1).toLocaleString()} rows, ${(bytes / 1024 / 1024).toFixed(0)} MB in ${seconds.toFixed(1)} s; server RSS ${mb(before)} before, peak ${mb(Math.max(peak, rssKb(pid, "VmHWM")))} (target < 200 MB)`,
    );
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
