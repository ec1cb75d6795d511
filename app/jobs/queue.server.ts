// The durable job queue (docs/architecture.md "one durable job queue"): background work that must
// not be lost (a reply going out on a channel, an inbound mail waiting to become a ticket) is a row
// in `jobs`, written in the transaction of the change that needs it, and run by a worker on every
// node. Works the same on SQLite and PostgreSQL.
//
// A due row is claimed by one UPDATE that picks it and leases it ("running" until runAt) in one
// statement: on PostgreSQL the pick skips rows another node is claiming (FOR UPDATE SKIP LOCKED),
// on SQLite the statement holds the write lock; so any number of nodes and worker processes
// (JOB_WORKERS, ADR 050) never run the same attempt, nor queue up behind each other's rows. Done rows are "done"; a failure waits 1, 2, 4 ... minutes (at most an hour) and
// gives up as "failed" after the kind's maxAttempts. A node that dies mid-job leaves its lease to
// run out and the job runs again, so handlers are idempotent (each checks what it already did).
//
// A job may name a lane (one customer on one channel): a lane's jobs run one at a time, oldest
// first, however many workers claim; a job waits while an older one of its lane is queued (also
// in its backoff) or any of its lane is running, and other lanes go on meanwhile. A unique index on
// the lane of running rows makes the database refuse a second running job of a lane, whatever the race.
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import { getDb, inBackground, isUniqueViolation, type DbHandle, type Tx } from "@db/client";
import { warnings, withLogContext, type LogFn } from "~/ops/log.server";
import { metrics } from "~/ops/metrics.server";

/** How long a claimed job is held (JOB_LEASE_MS, default 5 minutes): a node that dies mid-job leaves it to others after this. */
export const LEASE_MS = Number(process.env.JOB_LEASE_MS) || 5 * 60_000;
const BATCH = 20;
/** Lets the event loop take pending I/O (new connections, requests) before going on. */
const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));
const POLL_MS = 2_000;

/** The wait after the n-th failed attempt: 1 min, 2, 4, ... at most 1 h. */
export const backoffMs = (attempts: number) => Math.min(60_000 * 2 ** Math.max(0, attempts - 1), 60 * 60_000);

export type JobRow = typeof import("@db/schema/sqlite").jobs.$inferSelect;

/** What a handler knows of its run. */
export interface JobContext {
  job: JobRow;
  /** This is the last attempt: a failure now is final (the handler records it where users see it). */
  lastAttempt: boolean;
  /** The worker's clock (tests move it on), for a handler that keeps times of its own beside the queue's. */
  now: () => number;
}

/**
 * Thrown by a handler: the job waits and runs again later without using up an attempt (a channel
 * with no mail server configured: the mail waits until one is).
 */
export class WaitAndRetry extends Error {
  readonly jobOutcome = "wait";
  constructor(
    message: string,
    readonly delayMs = 60_000,
  ) {
    super(message);
  }
}

/**
 * Thrown by a handler: this attempt failed and counts, but the service said when to try again
 * (HTTP Retry-After): the next attempt waits `delayMs` instead of the usual backoff.
 */
export class RetryAfter extends Error {
  readonly jobOutcome = "retry-after";
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/** Thrown by a handler: trying again cannot help (the provider refused the recipient for good). */
export class PermanentFailure extends Error {
  readonly jobOutcome = "permanent";
}

// told apart by a mark, not instanceof: server.ts (the worker) and the Remix build (plugins,
// adapters) each have their own copy of these classes
export const isWaitAndRetry = (error: unknown): error is WaitAndRetry => (error as { jobOutcome?: string })?.jobOutcome === "wait";
export const isRetryAfter = (error: unknown): error is RetryAfter => (error as { jobOutcome?: string })?.jobOutcome === "retry-after";
export const isPermanentFailure = (error: unknown): error is PermanentFailure => (error as { jobOutcome?: string })?.jobOutcome === "permanent";

export interface JobKind {
  run(payload: unknown, context: JobContext): Promise<void>;
  /** Called once when the job has failed for good (after its last attempt or a PermanentFailure). */
  failed?(payload: unknown, error: string, job: JobRow): Promise<void>;
  maxAttempts?: number;
}

// kept on globalThis: server.ts and the Remix build are two bundles with their own copy of this file
const g = globalThis as unknown as { __omnideskJobKinds?: Map<string, JobKind>; __omnideskJobWake?: Set<() => void> };
const kinds = (g.__omnideskJobKinds ??= new Map());
const wakers = (g.__omnideskJobWake ??= new Set());

/** A plugin's start() says how its kind of job runs. */
export function defineJobKind(kind: string, definition: JobKind) {
  kinds.set(kind, definition);
}

/**
 * Queues a job once per key (enqueueing the same key again does nothing), in the caller's
 * transaction when given. Call wakeJobs() after the transaction commits to run it at once.
 * Answers whether it queued one (false: the key was queued before).
 */
export async function enqueue(
  tx: Tx | undefined,
  job: { kind: string; key: string; payload?: unknown; runAt?: number; lane?: string | null },
): Promise<boolean> {
  const { db, schema } = getDb();
  const now = Date.now();
  const inserted = await (tx ?? db)
    .insert(schema.jobs)
    .values({ kind: job.kind, key: job.key, payload: JSON.stringify(job.payload ?? {}), runAt: job.runAt ?? now, createdAt: now, lane: job.lane || null })
    .onConflictDoNothing()
    .returning({ id: schema.jobs.id });
  return inserted.length > 0;
}

/** Runs this node's workers now instead of at their next poll (others find the job within POLL_MS). */
export function wakeJobs() {
  for (const wake of wakers) wake();
}

/** Also told by wakeJobs() (the web node tells its worker processes, ADR 050); answers the undo. */
export function onWakeJobs(wake: () => void) {
  wakers.add(wake);
  return () => void wakers.delete(wake);
}

/** Puts a finished (failed) job back in the queue, as the agent's Retry does. */
export async function retryJob(key: string, tx?: Tx) {
  const { db, schema } = getDb();
  const j = schema.jobs;
  const [row] = await (tx ?? db)
    .update(j)
    .set({ state: "queued", attempts: 0, runAt: Date.now(), lastError: null, finishedAt: null })
    .where(and(eq(j.key, key), eq(j.state, "failed")))
    .returning();
  return !!row;
}

export interface JobWorkerOptions {
  /** The database (default the process's; tests give each worker its own connection). */
  db?: DbHandle;
  pollMs?: number;
  /** Jobs run at once by this worker (JOB_CONCURRENCY, default 4). */
  concurrency?: number;
  now?: () => number;
  log?: LogFn;
  /** How long a claim holds a job (default LEASE_MS); the worker renews it every third of that while the job runs. */
  leaseMs?: number;
}

export function createJobWorker(options: JobWorkerOptions = {}) {
  const now = options.now ?? Date.now;
  const log = options.log ?? warnings("jobs");
  const db = () => options.db ?? getDb();
  const concurrency = Math.max(1, options.concurrency ?? (Number(process.env.JOB_CONCURRENCY) || 4));
  const leaseMs = options.leaseMs ?? LEASE_MS;

  async function finish(row: JobRow, set: Partial<JobRow>) {
    const handle = db();
    const j = handle.schema.jobs;
    // only while the lease is ours: a job taken over after its lease ran out is another node's now
    const [changed] = await handle.db
      .update(j)
      .set(set)
      .where(and(eq(j.id, row.id), eq(j.state, "running"), eq(j.attempts, row.attempts)))
      .returning();
    return changed;
  }

  /** Picks the next due job and leases it, in one statement: the claimed row, null when none is due, "busy" when a lane's race took it. */
  async function claimNext(at: number) {
    if (!kinds.size) return null;
    const handle = db();
    const j = handle.schema.jobs;
    const dueNow = and(inArray(j.state, ["queued", "running"]), lte(j.runAt, at), inArray(j.kind, [...kinds.keys()]));
    // a lane's turn: none of it running (but this one, its lease run out) and none older still queued
    const lanesTurn = sql`(${j.lane} is null or not exists (select 1 from jobs lane_job where lane_job.lane = ${j.lane} and lane_job.id <> ${j.id}
      and (lane_job.state = 'running' or (lane_job.state = 'queued' and lane_job.id < ${j.id}))))`;
    const next = handle.db.select({ id: j.id }).from(j).where(and(dueNow, lanesTurn)).orderBy(asc(j.runAt), asc(j.id)).limit(1);
    // PostgreSQL: a row another node is claiming right now is skipped, not waited for
    const pick =
      handle.dialect === "pg" ? (next as unknown as { for(s: "update", o: { skipLocked: boolean }): typeof next }).for("update", { skipLocked: true }) : next;
    try {
      const [claimed] = await handle.db
        .update(j)
        // the lease counts from the claim, not from the pass's start: a pass works through up to a
        // batch, and a job claimed late in it would otherwise hold a lease already partly spent
        .set({ state: "running", attempts: sql`${j.attempts} + 1`, runAt: now() + leaseMs })
        // "= (one row)", evaluated once: an IN (...) subquery may be run again per row on PostgreSQL,
        // picking (and leasing) more rows than this worker takes
        .where(and(eq(j.id, sql`(${pick})`), dueNow))
        .returning();
      return (claimed as JobRow | undefined) ?? null;
    } catch (error) {
      // another worker started a job of the same lane between this one's look and its lease (the
      // lane's unique index refused the second): nothing claimed this time, the next look skips it
      if (isUniqueViolation(error)) return "busy" as const;
      throw error;
    }
  }

  /**
   * Holds the claim while the job runs: a job that runs longer than the lease (a slow provider, a
   * big import) would otherwise be taken for a dead node's and run a second time beside itself.
   */
  function keepLease(row: JobRow) {
    const renew = async () => {
      const handle = db();
      const j = handle.schema.jobs;
      await handle.db
        .update(j)
        .set({ runAt: now() + leaseMs })
        .where(and(eq(j.id, row.id), eq(j.state, "running"), eq(j.attempts, row.attempts)))
        .catch((error) => log(`job ${row.kind} ${row.key}: lease not renewed`, error));
    };
    const timer = setInterval(() => void renew(), Math.max(1, Math.floor(leaseMs / 3)));
    timer.unref();
    return () => clearInterval(timer);
  }

  /** An attempt with the job's ids on every line logged meanwhile, timed; its transactions give way to requests'. */
  function run(row: JobRow) {
    return inBackground(() =>
      withLogContext({ jobId: row.id, jobKind: row.kind }, async () => {
        const end = metrics.jobDuration.startTimer({ kind: row.kind });
        const stopRenewing = keepLease(row);
        try {
          const ok = await attempt(row);
          end({ ok: String(ok) });
          return ok;
        } finally {
          stopRenewing();
        }
      }),
    );
  }

  async function attempt(row: JobRow) {
    const kind = kinds.get(row.kind);
    if (!kind) return false;
    const maxAttempts = kind.maxAttempts ?? 10;
    if (row.attempts > maxAttempts) {
      // its last attempt's lease ran out (a node died mid-job): give up, as after a failure
      const error = row.lastError ?? "stopped during the last attempt";
      if (await finish(row, { state: "failed", lastError: error, finishedAt: now() })) await kind.failed?.(JSON.parse(row.payload), error, row);
      return false;
    }
    try {
      await kind.run(JSON.parse(row.payload), { job: row, lastAttempt: row.attempts >= maxAttempts, now });
      await finish(row, { state: "done", lastError: null, finishedAt: now() });
      return true;
    } catch (error) {
      const message = String((error as Error)?.message ?? error).slice(0, 1000);
      if (isWaitAndRetry(error)) {
        // waiting is not trying: the attempt is given back
        await finish(row, { state: "queued", attempts: row.attempts - 1, lastError: message, runAt: now() + (Number(error.delayMs) || 60_000) });
        return false;
      }
      const final = isPermanentFailure(error) || row.attempts >= maxAttempts;
      const changed = await finish(
        row,
        final
          ? { state: "failed", lastError: message, finishedAt: now() }
          : {
              state: "queued",
              lastError: message,
              runAt: now() + (isRetryAfter(error) && Number(error.delayMs) >= 0 ? Number(error.delayMs) : backoffMs(row.attempts)),
            },
      );
      metrics.jobFailures.inc({ kind: row.kind, final: String(final) });
      log(`job ${row.kind} ${row.key}: attempt ${row.attempts} failed${final ? ", given up" : ""}`, error);
      if (final && changed) await kind.failed?.(JSON.parse(row.payload), message, row);
      return false;
    }
  }

  /** A pass ended with more to do at once: a full batch, or a lane's race left a job for the next look. */
  let full = false;
  /**
   * One pass: claims and runs what is due (at most BATCH), a few at once (sends and parsing wait on
   * I/O); answers how many were done. A slot that finds nothing stops; the others go on, so the
   * next job of a lane is taken in the same pass by the slot that ran the one before it.
   */
  async function runOnce() {
    let done = 0;
    let claims = 0;
    let dry = false;
    let raced = false;
    const at = now();
    const slot = async () => {
      // a stopping worker claims nothing more; what it runs, it finishes (or gives back: stop)
      while (!stopping && claims < BATCH) {
        // SQLite answers synchronously, so a pass would otherwise run its whole batch in one turn
        // of the event loop: webhooks and pages waiting to be answered get in between jobs
        await yieldToIo();
        claims++;
        const claimed = await claimNext(at);
        if (claimed === "busy") {
          raced = true;
          continue;
        }
        if (!claimed) {
          dry = true;
          break;
        }
        inFlight.add(claimed);
        try {
          if (await run(claimed)) done++;
        } finally {
          inFlight.delete(claimed);
        }
      }
    };
    // a slot that fails (the database went away) does not end the pass while the others still run
    // jobs: the next pass must not start beside them
    const slots = await Promise.allSettled(Array.from({ length: concurrency }, slot));
    const failed = slots.find((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed) throw failed.reason;
    // a full batch: there may be more due, so the next pass starts at once instead of after a poll
    full = (!dry && claims >= BATCH) || raced;
    return done;
  }

  /** Jobs this worker has claimed and not finished. */
  const inFlight = new Set<JobRow>();
  /** A job cut by a stop: its attempt is given back and it is due at once, for another node. */
  async function release(row: JobRow) {
    const handle = db();
    const j = handle.schema.jobs;
    await handle.db
      .update(j)
      .set({ state: "queued", attempts: row.attempts - 1, runAt: now() })
      .where(and(eq(j.id, row.id), eq(j.state, "running"), eq(j.attempts, row.attempts)));
  }

  let lastPassAt = 0;
  /** Set by stop(): a pass under way claims nothing more. */
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let again = false;
  let stopped = true;
  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped) (timer = setTimeout(tick, ms)).unref();
  };
  function tick() {
    if (running) {
      // woken mid-pass: go round once more when it ends, for the job that woke us
      again = true;
      return;
    }
    running = runOnce()
      .catch((error) => log("job worker: a pass failed", error))
      .finally(() => {
        lastPassAt = now();
        running = undefined;
        const next = again || full;
        again = false;
        schedule(next ? 0 : (options.pollMs ?? POLL_MS));
      });
  }
  const wake = () => {
    if (!stopped) tick();
  };

  return {
    runOnce,
    /** Polls until stopped (the timer does not keep the process alive); wakeJobs() runs it at once. */
    start() {
      stopped = false;
      wakers.add(wake);
      tick();
      return this;
    },
    /**
     * Claims nothing more and waits for the running jobs until `deadline`; those still running then
     * are given back (handlers are idempotent). Answers whether every job finished.
     */
    async stop(deadline = Infinity) {
      stopped = true;
      stopping = true;
      wakers.delete(wake);
      clearTimeout(timer);
      let timeout: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        Promise.resolve(running).then(() => true),
        ...(Number.isFinite(deadline) ? [new Promise<boolean>((resolve) => (timeout = setTimeout(() => resolve(false), Math.max(0, deadline - now()))))] : []),
      ]);
      clearTimeout(timeout);
      for (const row of inFlight) await release(row).catch((error) => log(`job ${row.kind} ${row.key}: not given back (${String(error)})`));
      return finished;
    },
    /** When the last pass ended (readiness: a worker that stopped passing is stuck). */
    lastPassAt: () => lastPassAt,
  };
}
