// The mail outbox worker: sends what queueMail put in mailOutbox through SMTP_URL (started by
// server.ts when a mail server is configured; MAIL_FROM names the sender).
//
// Every node may run one. A row is claimed by one conditional UPDATE (its status and attempt count
// as read: whoever changes them first wins, so two nodes never send the same attempt) that leases
// it ("sending" until nextAttemptAt). Sent rows become "sent"; a failure waits 1, 2, 4 ... minutes
// (at most an hour) and gives up as "failed" after MAX_ATTEMPTS. A node that dies mid-send leaves
// its lease to run out, then the row is tried again with the same Message-ID (derived from the
// dedupe key), so a copy that did go out is recognisable as the same message.
import { createHash } from "node:crypto";
import nodemailer from "nodemailer";
import { and, asc, eq, inArray, lte } from "drizzle-orm";
import { getDb, type DbHandle } from "@db/client";
import { warnings, type LogFn } from "~/ops/log.server";
// the job queue's lease (longer than a send can take, see the timeouts below) and waits (1 min, 2,
// 4, ... at most 1 h): this outbox predates the queue and keeps its rules
import { backoffMs, LEASE_MS } from "~/jobs/queue.server";

export { backoffMs, LEASE_MS };
export const MAX_ATTEMPTS = 10;
const BATCH = 20;
const POLL_MS = 5_000;

/** The same message keeps the same Message-ID across retries (and nodes). */
export const messageIdFor = (dedupeKey: string, domain: string) => `<${createHash("sha256").update(dedupeKey).digest("hex").slice(0, 40)}@${domain}>`;

export interface MailWorkerOptions {
  /** smtp://user:pass@host:port or smtps://... (default SMTP_URL). */
  url?: string;
  /** The sender (default MAIL_FROM, else no-reply at the mail server's host). */
  from?: string;
  /** The database (default the process's; tests give each worker its own connection). */
  db?: DbHandle;
  pollMs?: number;
  now?: () => number;
  log?: LogFn;
}

type Row = Awaited<ReturnType<typeof due>>[number];

async function due(handle: DbHandle, now: number) {
  const o = handle.schema.mailOutbox;
  return handle.db
    .select()
    .from(o)
    .where(and(inArray(o.status, ["queued", "sending"]), lte(o.nextAttemptAt, now)))
    .orderBy(asc(o.nextAttemptAt), asc(o.id))
    .limit(BATCH);
}

export function createMailWorker(options: MailWorkerOptions = {}) {
  const url = options.url ?? process.env.SMTP_URL ?? "";
  if (!url) throw new Error("SMTP_URL is not set");
  const now = options.now ?? Date.now;
  const log = options.log ?? warnings("mail");
  const from = options.from ?? process.env.MAIL_FROM ?? `OmniDesk <no-reply@${new URL(url).hostname || "localhost"}>`;
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? "omnidesk.invalid";
  // bounded waits, so a send ends well inside its lease
  const transport = nodemailer.createTransport({ url, connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 });
  const db = () => options.db ?? getDb();

  /** Takes the row if nobody changed it since it was read; the claimed row, or undefined. */
  async function claim(row: Row, at: number) {
    const handle = db();
    const o = handle.schema.mailOutbox;
    const unchanged = and(eq(o.id, row.id), eq(o.status, row.status), eq(o.attempts, row.attempts), lte(o.nextAttemptAt, at));
    if (row.attempts >= MAX_ATTEMPTS) {
      // its last attempt's lease ran out (a node died mid-send): give up, as after a failure
      await handle.db
        .update(o)
        .set({ status: "failed", lastError: row.lastError ?? "stopped during the last attempt" })
        .where(unchanged);
      return undefined;
    }
    const [claimed] = await handle.db
      .update(o)
      .set({ status: "sending", attempts: row.attempts + 1, nextAttemptAt: at + LEASE_MS })
      .where(unchanged)
      .returning();
    return claimed;
  }

  async function send(row: Row) {
    const handle = db();
    const o = handle.schema.mailOutbox;
    // only while the lease is ours: a row taken over after it ran out is the other node's now
    const mine = and(eq(o.id, row.id), eq(o.status, "sending"), eq(o.attempts, row.attempts));
    try {
      await transport.sendMail({
        from,
        to: row.to,
        subject: row.subject,
        text: row.text,
        ...(row.html ? { html: row.html } : {}),
        messageId: messageIdFor(row.dedupeKey, domain),
        headers: { "Auto-Submitted": "auto-generated" },
      });
      // once delivered the body is not kept: it may hold a single-use link (invite, password reset)
      // that a copy of the database would otherwise carry until it expires
      await handle.db.update(o).set({ status: "sent", sentAt: now(), lastError: null, text: "", html: null }).where(mine);
      return true;
    } catch (error) {
      const e = error as Error & { responseCode?: number };
      const lastError = `${e.responseCode ? `${e.responseCode} ` : ""}${e.message}`.slice(0, 1000);
      const giveUp = row.attempts >= MAX_ATTEMPTS;
      await handle.db
        .update(o)
        .set(giveUp ? { status: "failed", lastError } : { status: "queued", lastError, nextAttemptAt: now() + backoffMs(row.attempts) })
        .where(mine);
      log(`mail ${row.id}: attempt ${row.attempts} failed${giveUp ? ", given up" : ""}`, error);
      return false;
    }
  }

  /** One pass: claims and sends what is due; answers how many were sent. */
  async function runOnce() {
    let sent = 0;
    const at = now();
    for (const row of await due(db(), at)) {
      const claimed = await claim(row, at);
      if (claimed && (await send(claimed))) sent++;
    }
    return sent;
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = runOnce()
      .catch((error) => log("mail worker: a pass failed", error))
      .finally(() => {
        if (!stopped) (timer = setTimeout(tick, options.pollMs ?? POLL_MS)).unref();
      });
  };

  return {
    runOnce,
    /** Polls until stopped (the timer does not keep the process alive). */
    start() {
      stopped = false;
      tick();
      return this;
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      transport.close();
    },
  };
}

/** server.ts: `if (mailConfigured()) startMailWorker();` */
export const startMailWorker = () => createMailWorker().start();
