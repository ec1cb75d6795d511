// The SLA scheduler on a large database (SQLite): 1,000,000 open tickets with stored due times,
// BENCH_DUE of them (default 10,000) due now. Prints the time and memory of
//   - the sweep that follows ticket changes when nothing changed (an index range, no work),
//   - the pass over the due ones (warning or breach per ticket: alert row, system message,
//     notifications, next check; one transaction per ticket),
//   - a second pass right after (nothing due: one index probe).
//   npm run bench:sla          (BENCH_TICKETS, BENCH_DUE to change the sizes)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { sql } from "drizzle-orm";
import { openDatabase, setDb } from "../../db/client";
import { seedDemo } from "../../app/seed/seed";
import { runDue, sync } from "../../plugins/sla/engine.server";

const TICKETS = Number(process.env.BENCH_TICKETS || 1_000_000);
const DUE = Math.min(TICKETS, Number(process.env.BENCH_DUE || 10_000));
const MIN = 60_000;

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-sla-bench-"));
  const handle = openDatabase(path.join(dir, "bench.sqlite"));
  await handle.migrate();
  setDb(handle);
  await seedDemo(handle, { tickets: 0 });
  const now = Date.now();
  const sqlite = (handle.db as unknown as { $client: import("better-sqlite3").Database }).$client;
  let t0 = performance.now();
  const label = sqlite.prepare("insert into labels (name, sla) values ('Bench SLA', 60) returning id").get() as { id: number };
  const insertTicket = sqlite.prepare(
    "insert into tickets (ticket_number, title, channel, kind, status, department_id, created_at, updated_at) values (?, ?, 'EMAIL', 'ticket', 0, 2, ?, ?)",
  );
  const insertMessage = sqlite.prepare("insert into messages (ticket_id, type, body, created_at) values (?, 'text', 'help', ?)");
  const insertLabel = sqlite.prepare("insert into ticket_labels (ticket_id, label_id) values (?, ?)");
  const insertParticipant = sqlite.prepare("insert into participants (ticket_id, user_id, assignee, added_at, kind) values (?, 2, 1, ?, 'ticket')");
  const insertSla = sqlite.prepare(
    `insert into sla_tickets (ticket_id, label_id, resolution_due_at, due_at, due_target, warn_at, warn_minutes, next_check_at, state, seen_updated_at, computed_at)
     values (?, ?, ?, ?, 'resolution', ?, 10, ?, 'ok', ?, ?)`,
  );
  const fill = sqlite.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      // the first DUE tickets were created 61 minutes ago (due now); the others are due later, spread over a day
      const created = i < DUE ? now - 61 * MIN : now - Math.floor(Math.random() * 30 * MIN);
      const due = created + 60 * MIN + (i < DUE ? 0 : Math.floor(Math.random() * 24 * 60 * MIN));
      const id = Number(insertTicket.run(100001 + i, `Bench ${i}`, created, created).lastInsertRowid);
      // what the pass reads of a due ticket (its message, label and assignee); the others only need their row
      if (i < DUE) {
        insertMessage.run(id, created);
        insertLabel.run(id, label.id);
        insertParticipant.run(id, created);
      }
      insertSla.run(id, label.id, due, due, due - 10 * MIN, i < DUE ? due : due - 10 * MIN, created, now);
    }
  });
  for (let i = 0; i < TICKETS; i += 50_000) fill(i, Math.min(TICKETS, i + 50_000));
  sqlite.exec("analyze");
  await handle.raw(sql`insert into settings (key, value) values ('sla_sync_mark', ${String(now)}) on conflict (key) do update set value = excluded.value`);
  // no plan limit: every due alert goes out
  await handle.raw(sql`insert into settings (key, value) values ('plan', '99') on conflict (key) do update set value = excluded.value`);
  console.log(
    `prepared ${TICKETS.toLocaleString()} open tickets with due times (${DUE.toLocaleString()} due now) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  global.gc?.();
  const base = process.memoryUsage();
  t0 = performance.now();
  const synced = await sync(now + 1000, handle);
  console.log(`sweep for changed tickets (none changed): ${synced} recomputed in ${(performance.now() - t0).toFixed(1)} ms`);

  // better-sqlite3 is synchronous, so a sampling timer would never fire during the pass: the
  // process's peak RSS (kernel high-water mark) before and after, and the heap right after
  const rssBefore = process.resourceUsage().maxRSS * 1024;
  t0 = performance.now();
  const result = await runDue(now + 1000, handle);
  const ms = performance.now() - t0;
  const heapAfter = process.memoryUsage().heapUsed;
  const rssAfter = process.resourceUsage().maxRSS * 1024;
  console.log(
    `pass over the due ones: ${result.sent.length.toLocaleString()} alerts sent in ${(ms / 1000).toFixed(2)} s ` +
      `(${((result.sent.length / ms) * 1000).toFixed(0)} tickets/s); heap after ${mb(heapAfter)} (${mb(heapAfter - base.heapUsed)} more than before), ` +
      `peak RSS ${mb(rssBefore)} before, ${mb(rssAfter)} after`,
  );
  t0 = performance.now();
  const again = await runDue(now + 2000, handle);
  console.log(`pass right after (nothing due): ${again.sent.length} sent in ${(performance.now() - t0).toFixed(1)} ms`);
  const counts = sqlite
    .prepare("select (select count(*) from sla_alerts) as alerts, (select count(*) from notifications where category = 'sla') as notes")
    .get();
  console.log(`rows written: ${JSON.stringify(counts)}`);
  await handle.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
