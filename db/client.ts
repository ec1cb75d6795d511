// One database client for the whole process, chosen by DATABASE_URL:
// postgres://... -> PostgreSQL (scale-out), anything else -> an embedded SQLite file.
import path from "node:path";
import fs from "node:fs";
import { AsyncLocalStorage } from "node:async_hooks";
import Database from "better-sqlite3";
import pg from "pg";
import { drizzle as drizzleSqlite, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migrateSqlite } from "drizzle-orm/better-sqlite3/migrator";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import type { SQL } from "drizzle-orm";
import * as sqliteSchema from "./schema/sqlite";
import * as pgSchema from "./schema/pg";

const background = new AsyncLocalStorage<true>();
/**
 * Runs background work (the job worker's): on SQLite's one writer its transactions give way to
 * those of requests waiting at the same time, so a webhook's acknowledgement or a page's form never
 * queues behind a backlog of jobs (bench:channels: acks waited seconds behind inbound jobs).
 */
export const inBackground = <T>(work: () => Promise<T>) => background.run(true, work);

export type Dialect = "sqlite" | "pg";
/**
 * Model code is written once against the SQLite typings; at run time the object may be the
 * PostgreSQL flavour, whose query builder has the same surface for everything we use
 * (select/insert/update/delete, returning, onConflict*). Always `await` queries.
 */
export type DB = BetterSQLite3Database<typeof sqliteSchema>;
export type Schema = typeof sqliteSchema;

export interface DbHandle {
  dialect: Dialect;
  db: DB;
  schema: Schema;
  migrate(): Promise<void>;
  /** Runs a statement that the query builder does not cover. */
  raw(query: SQL): Promise<void>;
  close(): Promise<void>;
  /** Runs fn atomically. On SQLite, fn must only await database calls (no network or file I/O). */
  transaction<T>(fn: (tx: DB) => Promise<T>): Promise<T>;
}

export function dataDir() {
  return path.resolve(process.env.DATA_DIR || "data");
}

export function isPostgresUrl(url: string) {
  return /^postgres(ql)?:\/\//.test(url);
}

/** The SQLite file a (non-PostgreSQL) DATABASE_URL names: `file:/path`, a plain path, or DATA_DIR's default. */
export function sqliteFile(url: string, dir = dataDir()) {
  return url ? url.replace(/^file:/, "") : path.join(dir, "omnidesk.sqlite");
}

export function openDatabase(url = process.env.DATABASE_URL || ""): DbHandle {
  return isPostgresUrl(url) ? openPg(url) : openSqlite(sqliteFile(url));
}

/**
 * SQLITE_SYNCHRONOUS: with WAL, NORMAL (the default) loses nothing when the process crashes, but a
 * power loss or OS crash may undo the last commits; FULL syncs every commit, surviving those too.
 */
export function sqliteSynchronous(value = process.env.SQLITE_SYNCHRONOUS || "NORMAL") {
  const mode = value.toUpperCase();
  if (mode !== "NORMAL" && mode !== "FULL") throw new Error(`SQLITE_SYNCHRONOUS must be NORMAL or FULL, not "${value}"`);
  return mode;
}

/**
 * SQLITE_BUSY_TIMEOUT_MS: how long a statement waits for another process's write lock (a job worker's,
 * ADR 050) before SQLite gives up with SQLITE_BUSY (isDatabaseBusy). Default 5 s.
 */
export function sqliteBusyTimeoutMs(value = process.env.SQLITE_BUSY_TIMEOUT_MS || "5000") {
  return wholeMilliseconds("SQLITE_BUSY_TIMEOUT_MS", value);
}

/** A setting's value in whole milliseconds (0 or more), or a start-up error naming the setting. */
function wholeMilliseconds(name: string, value: string) {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) throw new Error(`${name} must be a whole number of milliseconds, not "${value}"`);
  return ms;
}

/**
 * PG_STATEMENT_TIMEOUT_MS: the longest one statement of the app may run on PostgreSQL before the
 * server cancels it (57014, isDatabaseBusy: a webhook answers 503, a job tries again later), so a
 * runaway query cannot hold a pool connection, and the locks it took, for ever. Default 60 s; 0: no
 * limit. Migrations run without it (an index over millions of rows may take minutes).
 */
export function pgStatementTimeoutMs(value = process.env.PG_STATEMENT_TIMEOUT_MS || "60000") {
  return wholeMilliseconds("PG_STATEMENT_TIMEOUT_MS", value);
}

/**
 * Compiled statements kept by their SQL text (the 500 last used). Drizzle prepares a new one for
 * every query, and compiling SQL was a visible share of each page's time. One statement per text
 * is safe because each runs to completion synchronously (nothing here iterates); its raw mode is
 * reset because drizzle switches it on per call. No drizzle `.prepare()` may keep one for later.
 */
function reuseStatements(client: Database.Database, keep = 500) {
  const compile = client.prepare.bind(client);
  const statements = new Map<string, Database.Statement>();
  client.prepare = ((source: string) => {
    let statement = statements.get(source);
    if (statement) {
      statements.delete(source); // re-inserted below: the Map's order is the order of last use
      if (statement.reader) statement.raw(false);
    } else {
      statement = compile(source);
      if (statements.size >= keep) statements.delete(statements.keys().next().value!);
    }
    statements.set(source, statement);
    return statement;
  }) as typeof client.prepare;
}

/** Drizzle's query builders that write: a statement they build is run in a turn of its own (see ownTurn). */
const WRITES = new Set<PropertyKey>(["insert", "update", "delete"]);

/**
 * SQLite has one connection, so a statement run while another flow's transaction is open runs
 * inside that transaction: a plain write (the job worker's claim, a webhook's stored event) would
 * be undone by the other's rollback, after its own caller was told it was written. So a write built
 * outside a transaction takes the writer's turn like a transaction of its own (requests first, as
 * inBackground says); inside one (`scope` open) it runs as part of it. Reads are left alone.
 */
function ownTurn<T extends object>(builder: T, inTransaction: () => boolean, transaction: DbHandle["transaction"]): T {
  const proxy: T = new Proxy(builder, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (prop === "then")
        return (resolve: (v: unknown) => unknown, reject: (e: unknown) => unknown) =>
          inTransaction() ? value.call(target, resolve, reject) : transaction(async () => await (target as PromiseLike<unknown>)).then(resolve, reject);
      // chained calls (.values, .set, .where, .returning, .onConflict*) go on building the same kind of statement
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (result === target) return proxy;
        return result && typeof result === "object" && ("then" in result || "values" in result || "set" in result)
          ? ownTurn(result, inTransaction, transaction)
          : result;
      };
    },
  });
  return proxy;
}

function openSqlite(file: string): DbHandle {
  const synchronous = sqliteSynchronous();
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const client = new Database(file);
  client.pragma("journal_mode = WAL");
  client.pragma(`busy_timeout = ${sqliteBusyTimeoutMs()}`);
  client.pragma("foreign_keys = ON");
  client.pragma(`synchronous = ${synchronous}`);
  reuseStatements(client);
  const raw = drizzleSqlite(client, { schema: sqliteSchema });
  const scope = new AsyncLocalStorage<{ open: boolean }>();
  const inTransaction = () => !!scope.getStore()?.open;
  // one transaction at a time; the next is a request's if any waits, else background work's
  let writing = false;
  const waiting = { request: [] as (() => void)[], background: [] as (() => void)[] };
  const turn = () =>
    new Promise<void>((resolve) => {
      if (!writing) {
        writing = true;
        resolve();
      } else waiting[background.getStore() ? "background" : "request"].push(resolve);
    });
  const next = () => {
    const go = waiting.request.shift() ?? waiting.background.shift();
    if (go) go();
    else writing = false;
  };
  // drizzle's better-sqlite3 transactions are synchronous; model code is async, so we open the
  // transaction by hand and let transactions take turns (requests' first, see inBackground).
  async function transaction<T>(fn: (tx: DB) => Promise<T>) {
    await turn();
    const mine = { open: true };
    try {
      client.exec("BEGIN IMMEDIATE");
      try {
        const result = await scope.run(mine, () => fn(db));
        client.exec("COMMIT");
        return result;
      } catch (error) {
        if (client.inTransaction) client.exec("ROLLBACK");
        throw error;
      }
    } finally {
      mine.open = false;
      next();
    }
  }
  // the methods handed out, made once (db.select and the like are called on every query)
  const methods = new Map<PropertyKey, unknown>();
  const db = new Proxy(raw, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      let method = methods.get(prop);
      if (!method) {
        method = WRITES.has(prop) ? (...args: unknown[]) => ownTurn(value.apply(target, args), inTransaction, transaction) : value.bind(target);
        methods.set(prop, method);
      }
      return method;
    },
  });
  return {
    dialect: "sqlite",
    db,
    schema: sqliteSchema,
    async migrate() {
      migrateSqlite(raw, { migrationsFolder: path.resolve("db/migrations/sqlite") });
    },
    async raw(query) {
      raw.run(query);
    },
    async close() {
      client.close();
    },
    transaction,
  };
}

function openPg(url: string): DbHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: Number(process.env.PG_POOL_SIZE || 10),
    // Short OLTP queries: JIT compiling a plan whose estimate looks large (a LIMIT over a big
    // index) costs more milliseconds than the query itself.
    options: `-c jit=off -c statement_timeout=${pgStatementTimeoutMs()}`,
    // a database that went away, or a pool whose connections are all busy, fails the queries waiting
    // on it within seconds (readiness turns 503, a webhook answers 503) instead of leaving them queued for ever
    connectionTimeoutMillis: Number(process.env.PG_CONNECT_TIMEOUT_MS || 5_000),
  });
  // an idle connection the server dropped (a restart, a failover) is replaced on the next query;
  // without a listener its error would end the process
  pool.on("error", (error) => console.error(`database connection lost: ${error.message}`));
  const db = drizzlePg(pool, { schema: pgSchema });
  return {
    dialect: "pg",
    db: db as unknown as DB,
    schema: pgSchema as unknown as Schema,
    async migrate() {
      // a connection of its own, without the statement timeout: a migration may build an index over millions of rows
      const client = new pg.Client({ connectionString: url, options: "-c jit=off -c statement_timeout=0" });
      await client.connect();
      try {
        await migratePg(drizzlePg(client), { migrationsFolder: path.resolve("db/migrations/pg") });
      } finally {
        await client.end();
      }
    },
    async raw(query) {
      await db.execute(query);
    },
    async close() {
      await pool.end();
    },
    transaction<T>(fn: (tx: DB) => Promise<T>) {
      return db.transaction((tx) => fn(tx as unknown as DB));
    },
  };
}

// The Remix server bundle and server.ts each load this module; a process-wide singleton keeps
// them on one connection.
const g = globalThis as unknown as { __omnideskDb?: DbHandle };

export function getDb(): DbHandle {
  return (g.__omnideskDb ??= openDatabase());
}

/** Replaces the process-wide handle (tests, seed CLI). */
export function setDb(handle: DbHandle | undefined) {
  g.__omnideskDb = handle;
}

/** The query builder a transaction hands its callback (same shape as the handle's `db`). */
export type Tx = ReturnType<typeof getDb>["db"];

/** Rows of a raw SELECT on either dialect (PostgreSQL returns bigints as strings: callers use Number). */
export async function rows<T = Record<string, unknown>>(query: SQL, handle: DbHandle = getDb()): Promise<T[]> {
  const { dialect, db } = handle;
  if (dialect === "sqlite") return db.all(query) as T[];
  const result = await (db as unknown as { execute(q: SQL): Promise<{ rows: T[] }> }).execute(query);
  return result.rows;
}

/** SQLite's and PostgreSQL's unique-index refusal, also when drizzle wraps it (the driver's error is then the cause). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: string; message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++)
    if (e.code === "23505" || e.code === "SQLITE_CONSTRAINT_UNIQUE" || /UNIQUE constraint failed|duplicate key value/i.test(e.message ?? "")) return true;
  return false;
}

/** PostgreSQL's SQLSTATEs for "not now": the connection (class 08), the server stopping or full, a conflict it rolled back. */
const PG_TRY_LATER = /^(08...|53300|57P0[123]|40001|40P01|55P03|57014)$/;
/** Node's socket failures on the way to the database. */
const NET_TRY_LATER = /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/;

/**
 * The database could not do the work just now, and the same work a little later may well succeed:
 * SQLite's wait for another process's write lock ran out (SQLITE_BUSY, SQLITE_LOCKED), or
 * PostgreSQL could not be reached, had no free pool connection within the connect timeout, dropped
 * the connection, is shutting down or full, or rolled the transaction back for a conflict. The
 * transaction in hand was not committed (or, for a connection cut during COMMIT, may have been:
 * callers answer "try again" only for work that is keyed, so a second run adds nothing). Looks
 * through drizzle's wrapping (the driver's error is the cause).
 */
export function isDatabaseBusy(error: unknown): boolean {
  for (let e = error as { code?: unknown; message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    const code = typeof e.code === "string" ? e.code : "";
    if (/^SQLITE_(BUSY|LOCKED)/.test(code) || PG_TRY_LATER.test(code) || NET_TRY_LATER.test(code)) return true;
    if (/^(timeout exceeded when trying to connect|Connection terminated)/.test(e.message ?? "")) return true;
  }
  return false;
}
