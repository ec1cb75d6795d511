// Readiness (/readyz, ADR 045): may a balancer send this node work? Each check answers within
// CHECK_TIMEOUT_MS, so a database or Redis that stopped answering turns it 503 within seconds, and
// back to 200 as soon as they answer again. /healthz only says the process is alive.
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { rows, type DbHandle } from "@db/client";

const CHECK_TIMEOUT_MS = 2_000;
/** The job worker finishes a pass at least this often while it runs (a pass waits on its jobs). */
const WORKER_SILENT_MS = 5 * 60_000;

export interface ReadinessSources {
  handle: DbHandle;
  draining: () => boolean;
  /** PING through the Redis client; absent without REDIS_URL. */
  redisPing?: () => Promise<unknown>;
  /** When the job worker last finished a pass (0: not started). */
  workerPassAt?: () => number;
}

export type CheckResult = "ok" | string;

async function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(work: () => Promise<unknown>): Promise<CheckResult> {
  try {
    await within(CHECK_TIMEOUT_MS, work());
    return "ok";
  } catch (error) {
    return String((error as Error)?.message ?? error).slice(0, 200);
  }
}

// the migrations this build ships, read once per dialect (the files do not change while it runs)
const shipped = new Map<string, number>();
const shippedMigrations = (dialect: string) => {
  let n = shipped.get(dialect);
  if (n === undefined) {
    const journal = JSON.parse(fs.readFileSync(path.resolve(`db/migrations/${dialect}/meta/_journal.json`), "utf8")) as { entries: unknown[] };
    shipped.set(dialect, (n = journal.entries.length));
  }
  return n;
};

/** Migrations this build ships that the database has not run (another node mid-deploy, a failed migrate). */
export async function pendingMigrations(handle: DbHandle): Promise<number> {
  const table = handle.dialect === "pg" ? sql`drizzle.__drizzle_migrations` : sql`__drizzle_migrations`;
  const [row] = await rows<{ n: number | string }>(sql`select count(*) as n from ${table}`, handle);
  return Math.max(0, shippedMigrations(handle.dialect) - Number(row.n));
}

export async function readiness(s: ReadinessSources) {
  const [database, migrations, redis] = await Promise.all([
    check(() => rows(sql`select 1`, s.handle)),
    check(async () => {
      const pending = await pendingMigrations(s.handle);
      if (pending) throw new Error(`${pending} migrations not run`);
    }),
    s.redisPing ? check(s.redisPing) : Promise.resolve(undefined),
  ]);
  const passAt = s.workerPassAt?.() ?? 0;
  const queue: CheckResult = !passAt || Date.now() - passAt < WORKER_SILENT_MS ? "ok" : `job worker silent for ${Math.round((Date.now() - passAt) / 1000)} s`;
  const checks = { draining: s.draining() ? "stopping" : "ok", database, migrations, queue, ...(redis ? { redis } : {}) };
  return { ok: Object.values(checks).every((c) => c === "ok"), checks };
}
