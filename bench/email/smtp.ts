// Email in through the product's own SMTP listener: starts the built server the way `npm start`
// does (a temp DATA_DIR, SQLite, the demo seed with support@omnidesk.localhost), pushes MAILS mails
// over CONNECTIONS parallel SMTP connections, then resends RESEND of them (same Message-IDs).
// Prints mails per second, the time from the 250 to the event being processed (the receive job's
// ticket, or its quarantine), the server's peak RSS, and how many extra events and tickets the
// resends made (must be 0), and what a 60 MB mail costs.
//   npm run build && npm run bench:email
// MAILS (10000), CONNECTIONS (8), RESEND (1000), BIG_MB (60: one mail that large at the end; 0: none), BENCH_PORT (3398), BENCH_SMTP_PORT (2598) change the run;
// KEEP_DATA=1 keeps the temp DATA_DIR. The receive job decides what an event becomes; while it is a stub
// that quarantines, "tickets created" stays 0 and the latency is to the quarantine.
import fs from "node:fs";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import nodemailer from "nodemailer";
import { startServer, stopServer, waitHealthy } from "../../tests/support/server-process";

const MAILS = Number(process.env.MAILS || 10_000);
const CONNECTIONS = Number(process.env.CONNECTIONS || 8);
const RESEND = Math.min(MAILS, Number(process.env.RESEND || 1_000));
const BIG_MB = Number(process.env.BIG_MB ?? 60);
const port = Number(process.env.BENCH_PORT || 3398);
const smtpPort = Number(process.env.BENCH_SMTP_PORT || 2598);
const TO = "support@omnidesk.localhost";
const run = Date.now().toString(36);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-email-"));
const server = startServer({
  PORT: String(port),
  DATA_DIR: dataDir,
  DATABASE_URL: "",
  SESSION_SECRET: "bench",
  SEED_DEMO: "1",
  NODE_ENV: "test",
  SMTP_LISTEN_PORT: String(smtpPort),
  SMTP_LISTEN_HOST: "127.0.0.1",
});

/** A customer's mail of about 2 KB: text and HTML alternatives, as a mail client sends it. */
function mailFor(i: number) {
  const customer = `customer${i % 500}@example.com`;
  const text = `Hello,\r\n\r\nmy order ${100000 + i} has not arrived yet. ${"Could you look into it please? ".repeat(20)}\r\n\r\nThanks,\r\nCustomer ${i % 500}\r\n`;
  return [
    `From: Customer ${i % 500} <${customer}>`,
    `To: Support <${TO}>`,
    `Subject: Order ${100000 + i} missing`,
    `Message-ID: <bench-${run}-${i}@example.com>`,
    `Date: ${new Date().toUTCString()}`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/alternative; boundary="b${i}"`,
    "",
    `--b${i}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    text,
    `--b${i}`,
    "Content-Type: text/html; charset=utf-8",
    "",
    `<html><body><p>${text.replace(/\r\n/g, "<br>")}</p><img src="https://tracker.example.com/p.gif?u=${i}"></body></html>`,
    `--b${i}--`,
    "",
  ].join("\r\n");
}

async function waitForPort(p: number, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect(p, "127.0.0.1", () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`nothing listens on 127.0.0.1:${p}: is SMTP_LISTEN_PORT taken?`);
}

/** The server's resident memory, in MB, from /proc (Linux). */
function rssOf(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS") {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((s.length * p) / 100) - 1)] : NaN;
};

/** Sends mails `indexes` over `connections` parallel connections; answers each mail's 250 time and reply. */
async function push(indexes: number[], connections: number, raw: (i: number) => string | Buffer = mailFor) {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port: smtpPort,
    secure: false,
    ignoreTLS: true,
    pool: true,
    maxConnections: connections,
    maxMessages: Infinity,
  });
  const results: { i: number; acceptedAt: number; response: string }[] = [];
  const errors: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < indexes.length) {
      const i = indexes[next++];
      try {
        const info = await transport.sendMail({ envelope: { from: `customer${i % 500}@example.com`, to: [TO] }, raw: raw(i) });
        results.push({ i, acceptedAt: Date.now(), response: info.response });
      } catch (error) {
        errors.push(String((error as Error).message));
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  transport.close();
  return { results, errors };
}

async function main() {
  await waitHealthy(`http://localhost:${port}`, 180_000);
  await waitForPort(smtpPort);
  const db = new Database(path.join(dataDir, "omnidesk.sqlite"), { readonly: true });
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  const tickets0 = count("SELECT count(*) AS n FROM tickets");
  const pid = server.pid!;
  const rssBefore = rssOf(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssOf(pid) || 0)), 50);

  console.log(`Sending ${MAILS} mails (~${(mailFor(0).length / 1024).toFixed(1)} KB each) over ${CONNECTIONS} connections to 127.0.0.1:${smtpPort}`);
  const t0 = performance.now();
  const first = await push(
    Array.from({ length: MAILS }, (_, i) => i),
    CONNECTIONS,
  );
  const sendSeconds = (performance.now() - t0) / 1000;

  // every event processed (a ticket made, or quarantined while the receive side is a stub)
  const until = Date.now() + 10 * 60_000;
  while (count("SELECT count(*) AS n FROM inbound_events WHERE state = 'received'") > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  const allSeconds = (performance.now() - t0) / 1000;
  const acceptedAt = new Map<number, number>();
  for (const r of first.results) {
    const id = /Stored as event (\d+)/.exec(r.response)?.[1];
    if (id) acceptedAt.set(Number(id), r.acceptedAt);
  }
  const rows = db.prepare("SELECT id, state, processed_at AS processedAt FROM inbound_events").all() as {
    id: number;
    state: string;
    processedAt: number | null;
  }[];
  // the job can finish before the 250 reaches the client: that counts as 0 ms
  const latencies = rows.filter((r) => r.processedAt != null && acceptedAt.has(r.id)).map((r) => Math.max(0, r.processedAt! - acceptedAt.get(r.id)!));
  const states = rows.reduce<Record<string, number>>((m, r) => ({ ...m, [r.state]: (m[r.state] ?? 0) + 1 }), {});
  const tickets1 = count("SELECT count(*) AS n FROM tickets");

  console.log(`  answered 250: ${first.results.length}, refused or failed: ${first.errors.length}${first.errors[0] ? ` (first: ${first.errors[0]})` : ""}`);
  console.log(`  through SMTP: ${(first.results.length / sendSeconds).toFixed(0)} mails/s (${sendSeconds.toFixed(1)} s)`);
  console.log(`  all processed after ${allSeconds.toFixed(1)} s: ${(rows.length / allSeconds).toFixed(0)} mails/s end to end`);
  console.log(`  events by state: ${JSON.stringify(states)}; tickets created: ${tickets1 - tickets0}`);
  console.log(`  250 -> event processed: p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms, max ${pct(latencies, 100)} ms`);

  console.log(`Resending ${RESEND} of them (same Message-IDs)`);
  const events1 = rows.length;
  const again = await push(
    Array.from({ length: RESEND }, (_, k) => Math.floor((k * MAILS) / RESEND)),
    CONNECTIONS,
  );
  await new Promise((r) => setTimeout(r, 1000));
  const events2 = count("SELECT count(*) AS n FROM inbound_events");
  const tickets2 = count("SELECT count(*) AS n FROM tickets");
  const told = again.results.filter((r) => /Already received/.test(r.response)).length;
  console.log(`  answered 250 "already received": ${told} of ${RESEND}; refused: ${again.errors.length}`);
  console.log(`  duplicates: ${events2 - events1} extra events, ${tickets2 - tickets1} extra tickets`);

  if (BIG_MB > 0) {
    // one big mail: streamed to storage, so the server's memory should not grow by its size
    const rawBig = Buffer.concat([
      Buffer.from(
        `From: <big@example.com>\r\nTo: <${TO}>\r\nSubject: big\r\nMessage-ID: <big-${run}@example.com>\r\nMIME-Version: 1.0\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n`,
      ),
      Buffer.from(
        randomBytes(Math.floor((BIG_MB * 1024 * 1024 * 0.75 * 76) / 78))
          .toString("base64")
          .replace(/.{76}/g, "$&\r\n"),
      ),
    ]);
    const peakBefore = rssPeak;
    const rssAtBig = (rssPeak = rssOf(pid));
    const tBig = performance.now();
    const big = await push([-1], 1, () => rawBig);
    const outcome = big.results[0]?.response ?? big.errors[0];
    console.log(
      `A ${(rawBig.length / 1024 / 1024).toFixed(0)} MB mail: "${outcome}" after ${((performance.now() - tBig) / 1000).toFixed(1)} s; server RSS ${rssAtBig.toFixed(0)} MB before it, peak ${rssPeak.toFixed(0)} MB during it`,
    );
    rssPeak = Math.max(peakBefore, rssPeak);
  }

  clearInterval(sampler);
  console.log(
    `Server RSS: ${rssBefore.toFixed(0)} MB before, peak ${rssPeak.toFixed(0)} MB during the run (sampled every 50 ms), VmHWM ${rssOf(pid, "VmHWM").toFixed(0)} MB since start (includes the seed)`,
  );
  db.close();
}

main()
  .catch((error) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(async () => {
    await stopServer(server);
    if (!process.env.KEEP_DATA) fs.rmSync(dataDir, { recursive: true, force: true });
    else console.log(`data kept in ${dataDir}`);
  });
