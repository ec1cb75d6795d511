// bench:email:imap — 10,000 small mails through IMAP polling from a private Dovecot: mails per
// second, p99 from the poll seeing a UID to its inbound event processed by the job worker, peak
// RSS, and the duplicate check (a second poll, and a poll from scratch with the cursor lost,
// store nothing). Figures only; no assertions on timings.
//   BENCH_MAILS (default 10000); DATABASE_URL=postgres://... to run on PostgreSQL (an empty database)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";

const MAILS = Number(process.env.BENCH_MAILS) || 10_000;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-imap-"));
process.env.DATA_DIR = dataDir;

const { openDatabase, setDb } = await import("../../db/client");
const { startDovecot } = await import("../../tests/support/dovecot");
const { saveAccount, loadAccount } = await import("../../plugins/channels/accounts.server");
const { defineInboundJob } = await import("../../plugins/channels/inbound.server");
const { createJobWorker } = await import("../../app/jobs/queue.server");
const { pollImap, IMAP_CURSOR } = await import("../../plugins/email/imap.server");
const { and, eq, isNull } = await import("drizzle-orm");

const pgUrl = process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : undefined;
const handle = openDatabase(pgUrl ?? path.join(dataDir, "bench.sqlite"));
await handle.migrate();
setDb(handle);
const dovecot = await startDovecot();
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

try {
  console.log(`bench:email:imap — ${MAILS} mails, ${pgUrl ? "PostgreSQL" : "SQLite"}, Dovecot on ${dovecot.host}:${dovecot.port}`);
  const run = Date.now();
  const mail = (i: number) =>
    `From: Customer ${i} <customer${i}@example.com>\r\nTo: support@desk.example\r\nSubject: Bench ${i}\r\nDate: ${new Date().toUTCString()}\r\nMessage-ID: <bench-${run}-${i}@customer.example>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello, this is mail ${i}.\r\n`;
  let t0 = performance.now();
  for (let i = 0; i < MAILS; i += 1000) await dovecot.deliver(Array.from({ length: Math.min(1000, MAILS - i) }, (_, k) => mail(i + k)));
  console.log(`  APPEND (4 connections): ${MAILS} mails in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const id = await saveAccount({
    kind: "EMAIL",
    name: "Bench IMAP",
    address: "support@desk.example",
    departmentId: null,
    config: { imapHost: dovecot.host, imapPort: String(dovecot.port), imapUser: dovecot.user },
    secrets: { imapPassword: dovecot.password },
  });
  const account = (await loadAccount(id))!;
  defineInboundJob();
  const worker = createJobWorker({ pollMs: 50, log: () => undefined }).start();

  const seenAt = new Map<number, number>();
  const rssBefore = process.memoryUsage().rss;
  t0 = performance.now();
  const first = await pollImap(account, { seen: (uid) => seenAt.set(uid, Date.now()) });
  const pollSeconds = (performance.now() - t0) / 1000;
  const e = handle.schema.inboundEvents;
  // the receive side runs in the job worker meanwhile; wait until every event is handled
  for (;;) {
    const [open] = await handle.db
      .select({ id: e.id })
      .from(e)
      .where(and(eq(e.accountId, id), isNull(e.processedAt)))
      .limit(1);
    if (!open) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const allSeconds = (performance.now() - t0) / 1000;
  await worker.stop();
  const rows = await handle.db.select({ meta: e.meta, state: e.state, processedAt: e.processedAt }).from(e).where(eq(e.accountId, id));
  const latencies = rows.map((r) => r.processedAt! - seenAt.get(JSON.parse(r.meta).uid)!).sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * p) - 1)];
  const states = rows.reduce<Record<string, number>>((acc, r) => ((acc[r.state] = (acc[r.state] ?? 0) + 1), acc), {});

  const second = await pollImap(account);
  // the cursor lost (or a new UIDVALIDITY): every mail looked at again, none stored again
  await handle.db
    .delete(handle.schema.channelCursors)
    .where(and(eq(handle.schema.channelCursors.accountId, id), eq(handle.schema.channelCursors.key, IMAP_CURSOR)));
  t0 = performance.now();
  const fromScratch = await pollImap(account);
  const rescanSeconds = (performance.now() - t0) / 1000;
  const count = (await handle.db.select({ id: e.id }).from(e).where(eq(e.accountId, id))).length;

  console.log(
    `  first poll: ${first.stored} stored of ${first.seen} seen in ${pollSeconds.toFixed(1)} s = ${(first.stored / pollSeconds).toFixed(0)} mails/s fetched and recorded`,
  );
  console.log(
    `  until all processed: ${allSeconds.toFixed(1)} s = ${(rows.length / allSeconds).toFixed(0)} mails/s end to end (event states: ${JSON.stringify(states)})`,
  );
  console.log(`  UID seen -> event processed: p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, max ${latencies.at(-1)} ms`);
  console.log(`  peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB (before the poll ${(rssBefore / 2 ** 20).toFixed(0)} MB)`);
  console.log(
    `  second poll: ${second.seen} seen, ${second.stored} stored; from scratch (cursor lost): ${fromScratch.seen} seen, ${fromScratch.stored} stored, ${fromScratch.skipped} skipped in ${rescanSeconds.toFixed(1)} s`,
  );
  console.log(`  duplicates: ${count - MAILS} (${count} events for ${MAILS} mails)`);
} finally {
  clearInterval(sampler);
  await dovecot.stop();
  await handle.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
