// `npm run backup` and `npm run restore` (app/backup/) on both dialects: an install's tickets,
// messages, uploaded file and session secret come back whole into an empty data dir and database;
// a target holding data is replaced only with --force; an altered archive, or one of the other
// dialect, is refused before the target changes. The commands answer exit code 0 or 1 with one line.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createPgDatabase, createTestDb, DIALECTS, PG_URL, type TestDb } from "./harness";
import { openDatabase, rows, type DbHandle } from "@db/client";
import { seedDemo } from "~/seed/seed";
import { filesDir, LocalDiskStorage } from "~/storage.server";
import { backup, restore, type Target } from "~/backup/backup.server";

const NOW = Date.UTC(2026, 10, 21, 12);
const root = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-backup-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => path.join(root, `dir-${++dirs}`);
const lastMigration = (dialect: string) => JSON.parse(fs.readFileSync(`db/migrations/${dialect}/meta/_journal.json`, "utf8")).entries.at(-1).tag;

/** Every ticket and message, and the uploaded file's bytes, of an install. */
async function contents(handle: DbHandle, dataDir: string, fileKey: string) {
  const { db, schema } = handle;
  const stream = await new LocalDiskStorage(filesDir(dataDir)).get(fileKey);
  return {
    tickets: await db.select().from(schema.tickets).orderBy(schema.tickets.id),
    messages: await db.select().from(schema.messages).orderBy(schema.messages.id),
    file: stream ? Buffer.from(await new Response(stream).arrayBuffer()) : undefined,
  };
}

/** The same archive with one byte of its uploaded file changed, its manifest left as it was. */
function tamper(archive: string) {
  const dir = newDir();
  fs.mkdirSync(dir);
  execFileSync("tar", ["-xzf", archive, "-C", dir]);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
  const upload = path.join(
    dir,
    Object.keys(manifest.entries).find((name) => name.startsWith("files/"))!,
  );
  const bytes = fs.readFileSync(upload);
  bytes[100] ^= 1;
  fs.writeFileSync(upload, bytes);
  const altered = path.join(root, `altered-${dirs}.tar.gz`);
  execFileSync("tar", ["-czf", altered, "-C", dir, ...fs.readdirSync(dir)]);
  return altered;
}

describe.each(DIALECTS)("backup and restore on %s", (dialect) => {
  let t: TestDb;
  let source: Target;
  let archive: string;
  let fileKey: string;
  let original: Awaited<ReturnType<typeof contents>>;
  const upload = randomBytes(300_000);
  /** An empty install to restore into: a new data dir, and an empty database (PostgreSQL) or none yet (SQLite). */
  const empties: { target: Target; open(): DbHandle; release(): Promise<void>; close(): Promise<void> }[] = [];
  async function emptyTarget() {
    const dataDir = newDir();
    const database = dialect === "pg" ? await createPgDatabase() : undefined;
    const handles: DbHandle[] = [];
    const target = { dataDir, databaseUrl: database?.url ?? "" };
    const empty = {
      target,
      open() {
        const handle = openDatabase(database?.url ?? path.join(dataDir, "omnidesk.sqlite"));
        handles.push(handle);
        return handle;
      },
      /** Closes the connections opened so far (a restore over an open SQLite file would be undone by them). */
      async release() {
        for (const handle of handles.splice(0)) await handle.close();
      },
      async close() {
        await empty.release();
        await database?.drop();
      },
    };
    empties.push(empty);
    return empty;
  }
  /** What a target holds: its tables (none in an empty database) and data dir entries. */
  async function held(empty: Awaited<ReturnType<typeof emptyTarget>>) {
    const entries = fs.existsSync(empty.target.dataDir) ? fs.readdirSync(empty.target.dataDir) : [];
    if (dialect === "sqlite") return { entries };
    const handle = empty.open();
    const [{ n }] = await rows<{ n: number }>(sql`select count(*)::int as n from information_schema.tables where table_schema = 'public'`, handle);
    return { entries, tables: n };
  }

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 40, now: NOW });
    // on SQLite the database is a file outside the data dir (DATABASE_URL=file:...), as it may be
    source = { dataDir: newDir(), databaseUrl: t.url };
    fileKey = await new LocalDiskStorage(filesDir(source.dataDir)).put(upload);
    const { db, schema } = t.handle;
    await db
      .insert(schema.messages)
      .values({ ticketId: 1, type: "file", body: "", fileKey, fileName: "plan.pdf", fileType: "application/pdf", createdAt: NOW });
    fs.writeFileSync(path.join(source.dataDir, "session-secret"), "the generated secret");
    original = await contents(t.handle, source.dataDir, fileKey);
    archive = (await backup({ out: path.join(root, "backups"), target: source })).file;
  });
  afterAll(async () => {
    for (const empty of empties) await empty.close();
    await t?.cleanup();
  });

  it("restores into an empty data dir and database every ticket, message and file", async () => {
    expect(original.tickets).toHaveLength(40);
    expect(original.messages.length).toBeGreaterThan(40);
    expect(original.file).toEqual(upload);
    const empty = await emptyTarget();
    const manifest = await restore({ archive, target: empty.target });
    expect(manifest).toMatchObject({ dialect, migration: lastMigration(dialect), files: 1, bytes: upload.length });
    expect(await contents(empty.open(), empty.target.dataDir, fileKey)).toEqual(original);
    // with the secret the sealed values (two-factor seeds, channel passwords) were sealed under
    expect(fs.readFileSync(path.join(empty.target.dataDir, "session-secret"), "utf8")).toBe("the generated secret");
  });

  it("refuses a target that holds data unless forced; forced, the target becomes the backup", async () => {
    const empty = await emptyTarget();
    await restore({ archive, target: empty.target });
    const handle = empty.open();
    await handle.db
      .insert(handle.schema.tickets)
      .values({ ticketNumber: 999999, title: "written after the backup", channel: "EMAIL", createdAt: NOW, updatedAt: NOW });
    await expect(restore({ archive, target: empty.target })).rejects.toThrow(/holds data already: add --force/);
    expect(await handle.db.select().from(handle.schema.tickets)).toHaveLength(41);
    await empty.release();
    await restore({ archive, target: empty.target, force: true });
    expect(await contents(empty.open(), empty.target.dataDir, fileKey)).toEqual(original);
  });

  it("refuses an altered archive, touching nothing", async () => {
    const empty = await emptyTarget();
    const before = await held(empty);
    await expect(restore({ archive: tamper(archive), target: empty.target })).rejects.toThrow(/damaged or was altered: files\/.+ does not match its checksum/);
    expect(await held(empty)).toEqual(before);
    expect(before).toEqual(dialect === "pg" ? { entries: [], tables: 0 } : { entries: [] });
  });

  it("refuses an archive of the other dialect", async () => {
    // a database that does not exist: nothing could be written to it
    const other: Target = dialect === "pg" ? { dataDir: newDir(), databaseUrl: "" } : { dataDir: newDir(), databaseUrl: `${PG_URL}_no_such_database` };
    await expect(restore({ archive, target: other, force: true })).rejects.toThrow(
      dialect === "pg" ? /holds a pg database but DATABASE_URL names a sqlite one/ : /holds a sqlite database but DATABASE_URL names a pg one/,
    );
    expect(fs.existsSync(other.dataDir)).toBe(false);
  });
});

describe("the commands", () => {
  const source = newDir();
  function run(script: "backup" | "restore", dataDir: string, ...args: string[]) {
    const result = spawnSync(process.execPath, ["--import", "tsx", `app/backup/${script}-cli.ts`, ...args], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" },
      encoding: "utf8",
      timeout: 30_000,
    });
    return { code: result.status, out: result.stdout, err: result.stderr };
  }

  beforeAll(async () => {
    const handle = openDatabase(path.join(source, "omnidesk.sqlite"));
    await handle.migrate();
    await seedDemo(handle, { tickets: 5, now: NOW });
    await handle.close();
  });

  // five processes: slow on a busy machine
  it("back up and restore with exit code 0, and refuse with exit code 1 and one line", { timeout: 120_000 }, () => {
    const archive = path.join(root, "by-command.tar.gz");
    const made = run("backup", source, "--out", archive);
    expect(made).toMatchObject({ code: 0, out: expect.stringMatching(/^Backed up the sqlite database at migration \S+, 0 uploaded files/) });
    const target = newDir();
    expect(run("restore", target, archive)).toMatchObject({ code: 0, out: expect.stringMatching(/^Restored the sqlite database/) });
    const again = run("restore", target, archive);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/^restore: the database .+ holds data already: add --force to replace it/);
    expect(again.err.trim().split("\n")).toHaveLength(1);
    expect(run("restore", target)).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^restore: name one archive \(usage: npm run restore -- ARCHIVE \[--force\]\)/),
    });
    expect(run("backup", source, "--out", archive)).toMatchObject({ code: 1, err: expect.stringMatching(/^backup: .+ exists already/) });
  });
});

describe("SQLITE_SYNCHRONOUS", () => {
  const previous = process.env.SQLITE_SYNCHRONOUS;
  afterAll(() => {
    if (previous === undefined) delete process.env.SQLITE_SYNCHRONOUS;
    else process.env.SQLITE_SYNCHRONOUS = previous;
  });
  async function synchronous(value: string | undefined) {
    if (value === undefined) delete process.env.SQLITE_SYNCHRONOUS;
    else process.env.SQLITE_SYNCHRONOUS = value;
    const handle = openDatabase(path.join(newDir(), "db.sqlite"));
    try {
      return (await rows<{ synchronous: number }>(sql`pragma synchronous`, handle))[0].synchronous;
    } finally {
      await handle.close();
    }
  }

  it("is NORMAL (1) by default, FULL (2) when asked, and refuses anything else", async () => {
    expect(await synchronous(undefined)).toBe(1);
    expect(await synchronous("full")).toBe(2);
    expect(await synchronous("NORMAL")).toBe(1);
    await expect(synchronous("OFF")).rejects.toThrow(/SQLITE_SYNCHRONOUS must be NORMAL or FULL, not "OFF"/);
  });
});
