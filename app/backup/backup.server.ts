// Backups of a whole install: the database (SQLite through its online backup API, PostgreSQL
// through pg_dump) and what the data dir keeps beside it (uploaded files, the generated session
// secret), in one .tar.gz with a manifest of checksums. `npm run backup` and `npm run restore` are
// thin wrappers (backup-cli.ts, restore-cli.ts); docs/operations.md is the operator's guide.
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import Database from "better-sqlite3";
import pg from "pg";
import { dataDir, isPostgresUrl, sqliteFile, type Dialect } from "@db/client";
import { filesDir } from "~/storage.server";

/** A reason for the operator: the commands print it as their one line and exit 1. */
export class BackupError extends Error {}

/** Where an install keeps its data: the data dir (files, session secret, the default SQLite file) and the database. */
export interface Target {
  dataDir: string;
  databaseUrl: string;
}

export function currentTarget(): Target {
  return { dataDir: dataDir(), databaseUrl: process.env.DATABASE_URL || "" };
}

const dialectOf = (target: Target): Dialect => (isPostgresUrl(target.databaseUrl) ? "pg" : "sqlite");

export interface Manifest {
  format: "omnidesk-backup";
  version: 1;
  dialect: Dialect;
  /** The database's last migration (its tag in db/migrations/<dialect>/meta/_journal.json). */
  migration: string | null;
  createdAt: string;
  /** Uploaded files and their bytes. */
  files: number;
  bytes: number;
  /** Every entry of the archive but the manifest, with its size and SHA-256. */
  entries: Record<string, { bytes: number; sha256: string }>;
}

// the archive's entries
const MANIFEST = "manifest.json";
const DUMP: Record<Dialect, string> = { sqlite: "database.sqlite", pg: "database.pgdump" };
const FILES = "files";
/** DATA_DIR/session-secret, written by server.ts when SESSION_SECRET is not set. */
const SECRET = "session-secret";

const exec = promisify(execFile);

/** Runs a client tool (tar, pg_dump, pg_restore); a failure becomes one line naming the tool. */
async function run(tool: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  try {
    await exec(tool, args, { env, maxBuffer: 64 << 20 });
  } catch (error) {
    const { code, stderr } = error as { code?: string; stderr?: string };
    if (code === "ENOENT") throw new BackupError(`${tool} was not found on the PATH`);
    const reason = (stderr ?? "").split("\n").find((line) => line.trim()) ?? (error as Error).message;
    throw new BackupError(`${tool} failed: ${reason.trim()}`);
  }
}

/** tar of the names in dir, gzipped at level 1 (a third of the default's time, an eighth larger) into file. */
async function pack(dir: string, names: string[], file: string) {
  const tar = spawn("tar", ["-cf", "-", "-C", dir, ...names], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  tar.stderr.on("data", (chunk) => (stderr += chunk));
  const exit = new Promise<number | Error>((resolve) => tar.on("error", resolve).on("close", resolve));
  // it holds every conversation (and maybe the session secret): for its owner's eyes only
  await pipeline(tar.stdout, createGzip({ level: 1 }), fs.createWriteStream(file, { mode: 0o600 }));
  const code = await exit;
  if (code instanceof Error) throw new BackupError(`tar could not run: ${code.message}`);
  if (code !== 0) throw new BackupError(`tar failed: ${stderr.split("\n")[0]}`);
}

/** libpq arguments for a URL: the password goes by environment, not on the command line other users can read. */
function libpq(url: string) {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  return { dbname: parsed.toString(), env: password ? { ...process.env, PGPASSWORD: password } : process.env };
}

async function withPg<T>(url: string, fn: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw new BackupError(`cannot reach the database: ${(error as Error).message}`);
  }
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function journalTags(dialect: Dialect): { when: number; tag: string }[] {
  return JSON.parse(fs.readFileSync(path.resolve(`db/migrations/${dialect}/meta/_journal.json`), "utf8")).entries;
}

/** The tag of the migration drizzle recorded last (it records each one's journal time). */
function migrationTag(dialect: Dialect, createdAt: unknown) {
  if (createdAt == null) return null;
  return journalTags(dialect).find((e) => e.when === Number(createdAt))?.tag ?? `unknown (${createdAt})`;
}

/** Regular files under dir, relative to it with "/"; `others` are entries that are neither file nor folder. */
function walk(dir: string, prefix = "", found = { files: [] as string[], others: [] as string[] }) {
  if (!fs.existsSync(dir)) return found;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix + entry.name;
    if (entry.isDirectory()) walk(path.join(dir, entry.name), `${rel}/`, found);
    else (entry.isFile() ? found.files : found.others).push(rel);
  }
  return found;
}

async function checksum(file: string) {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of fs.createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { bytes, sha256: hash.digest("hex") };
}

/** An archive's path: --out names the file (*.tar.gz) or a folder to put a dated one in. */
function archivePath(out: string, dialect: Dialect, now: Date) {
  if (/\.tar\.gz$/.test(out)) return path.resolve(out);
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return path.resolve(out, `omnidesk-${dialect}-${stamp}.tar.gz`);
}

async function backupSqlite(file: string, dest: string) {
  if (!fs.existsSync(file)) throw new BackupError(`there is no SQLite database at ${file}`);
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    const last = db.prepare("select created_at from __drizzle_migrations order by created_at desc limit 1").get() as { created_at: number } | undefined;
    // all pages in one step: a write by the running server between two steps would start the copy
    // over, and under WAL this step does not hold the server's writes back
    await db.backup(dest, { progress: () => 0x7fffffff });
    return migrationTag("sqlite", last?.created_at);
  } finally {
    db.close();
  }
}

async function backupPg(url: string, dest: string) {
  const last = await withPg(url, async (client) => {
    const result = await client.query("select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1").catch(() => ({ rows: [] }));
    return result.rows[0]?.created_at;
  });
  const { dbname, env } = libpq(url);
  await run("pg_dump", ["--format=custom", `--file=${dest}`, `--dbname=${dbname}`], env);
  return migrationTag("pg", last);
}

/**
 * Writes one archive of the install and returns its path and manifest. Safe while the server runs:
 * the database is copied first and the files after it, so every file a copied row names is there
 * (a file is stored before its row is written); a file uploaded meanwhile is an unused extra.
 */
export async function backup(options: { out: string; target?: Target; now?: Date }) {
  const target = options.target ?? currentTarget();
  const dialect = dialectOf(target);
  const now = options.now ?? new Date();
  const file = archivePath(options.out, dialect, now);
  if (fs.existsSync(file)) throw new BackupError(`${file} exists already`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const staging = fs.mkdtempSync(path.join(path.dirname(file), ".omnidesk-backup-"));
  try {
    const dump = path.join(staging, DUMP[dialect]);
    const migration =
      dialect === "sqlite" ? await backupSqlite(sqliteFile(target.databaseUrl, target.dataDir), dump) : await backupPg(target.databaseUrl, dump);
    const names = [DUMP[dialect]];
    // copies, not links: what is hashed must be what tar reads, even for a file still being written
    const uploads = walk(filesDir(target.dataDir)).files.filter((rel) => {
      fs.mkdirSync(path.dirname(path.join(staging, FILES, rel)), { recursive: true });
      try {
        fs.copyFileSync(path.join(filesDir(target.dataDir), rel), path.join(staging, FILES, rel), fs.constants.COPYFILE_FICLONE);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return false; // removed meanwhile
        throw error;
      }
    });
    if (uploads.length) names.push(FILES);
    if (fs.existsSync(path.join(target.dataDir, SECRET))) {
      fs.copyFileSync(path.join(target.dataDir, SECRET), path.join(staging, SECRET));
      names.push(SECRET);
    }
    const entries: Manifest["entries"] = {};
    for (const rel of walk(staging).files) entries[rel] = await checksum(path.join(staging, rel));
    const manifest: Manifest = {
      format: "omnidesk-backup",
      version: 1,
      dialect,
      migration,
      createdAt: now.toISOString(),
      files: uploads.length,
      bytes: uploads.reduce((sum, rel) => sum + entries[`${FILES}/${rel}`].bytes, 0),
      entries,
    };
    fs.writeFileSync(path.join(staging, MANIFEST), JSON.stringify(manifest, null, 1));
    // written inside the staging folder (not among the names archived), moved into place whole
    const partial = path.join(staging, "archive.tar.gz");
    await pack(staging, [MANIFEST, ...names], partial);
    fs.renameSync(partial, file);
    return { file, manifest };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** What of the target holds data already (the first found), or null when restoring replaces nothing. */
async function occupied(target: Target, dialect: Dialect) {
  if (dialect === "pg") {
    const tables = await withPg(target.databaseUrl, async (client) => {
      const result = await client.query(
        "select count(*)::int as n from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
      );
      return result.rows[0].n as number;
    });
    if (tables > 0) return `the database (${tables} tables)`;
  } else {
    const file = sqliteFile(target.databaseUrl, target.dataDir);
    if (fs.existsSync(file) && fs.statSync(file).size > 0) return `the database ${file}`;
  }
  if (walk(filesDir(target.dataDir)).files.length) return `${filesDir(target.dataDir)}`;
  if (fs.existsSync(path.join(target.dataDir, SECRET))) return `${path.join(target.dataDir, SECRET)}`;
  return null;
}

/** Reads and checks an unpacked archive against the manifest: the right dialect, every byte as written. */
async function verify(dir: string, dialect: Dialect): Promise<Manifest> {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), "utf8"));
  } catch {
    throw new BackupError("this is not an OmniDesk backup (no readable manifest.json)");
  }
  if (manifest.format !== "omnidesk-backup" || manifest.version !== 1) throw new BackupError("this is not an OmniDesk backup of a known version");
  if (manifest.dialect !== dialect)
    throw new BackupError(`the backup holds a ${manifest.dialect} database but DATABASE_URL names a ${dialect} one: restore it into the same kind`);
  if (manifest.migration && !journalTags(dialect).some((e) => e.tag === manifest.migration))
    throw new BackupError(`the backup's schema (${manifest.migration}) is newer than this version knows: restore it with the version that made it`);
  const found = walk(dir);
  if (found.others.length) throw new BackupError(`the archive holds ${found.others[0]}, which is not a plain file`);
  const listed = new Set(Object.keys(manifest.entries));
  if (!listed.has(DUMP[dialect])) throw new BackupError(`the archive has no ${DUMP[dialect]}`);
  for (const rel of found.files) {
    if (rel === MANIFEST) continue;
    if (!listed.delete(rel)) throw new BackupError(`the archive was altered: ${rel} is not in its manifest`);
    const { bytes, sha256 } = await checksum(path.join(dir, rel));
    if (bytes !== manifest.entries[rel].bytes || sha256 !== manifest.entries[rel].sha256)
      throw new BackupError(`the archive is damaged or was altered: ${rel} does not match its checksum`);
  }
  if (listed.size) throw new BackupError(`the archive is incomplete: ${[...listed][0]} is missing`);
  return manifest;
}

/** A rename, or a copy then rename when the database lives on another file system than the data dir. */
function moveInto(src: string, dest: string) {
  try {
    fs.renameSync(src, dest);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    fs.copyFileSync(src, `${dest}.partial`);
    fs.renameSync(`${dest}.partial`, dest);
  }
}

async function restorePg(url: string, dump: string) {
  const { dbname, env } = libpq(url);
  // one transaction: a failed restore leaves the database as it was; roles and grants are the
  // target server's own (the product needs none but the URL's owner)
  await run(
    "pg_restore",
    ["--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error", `--dbname=${dbname}`, dump],
    env,
  );
}

function restoreSqlite(file: string, dump: string) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // the replaced database's log must not be replayed into the restored one
  for (const suffix of ["-wal", "-shm", "-journal"]) fs.rmSync(file + suffix, { force: true });
  moveInto(dump, file);
}

/**
 * Restores an archive into the target (stop its server first). Refuses, touching nothing, when the
 * target holds data (unless force), or when the archive is of the other dialect, of a newer schema,
 * or does not match its checksums. Replaces the database, the uploaded files and the session secret.
 */
export async function restore(options: { archive: string; force?: boolean; target?: Target }) {
  const target = options.target ?? currentTarget();
  const dialect = dialectOf(target);
  const archive = path.resolve(options.archive);
  if (!fs.existsSync(archive)) throw new BackupError(`there is no archive at ${archive}`);
  if (!options.force) {
    const held = await occupied(target, dialect);
    if (held) throw new BackupError(`${held} holds data already: add --force to replace it (with the server stopped)`);
  }
  const madeDataDir = !fs.existsSync(target.dataDir);
  fs.mkdirSync(target.dataDir, { recursive: true });
  // unpacked inside the data dir, so the files move into place by rename (one file system)
  const staging = fs.mkdtempSync(path.join(target.dataDir, ".restore-"));
  let restored = false;
  try {
    await run("tar", ["-xzf", archive, "-C", staging, "--no-same-owner"]);
    const manifest = await verify(staging, dialect);
    const dump = path.join(staging, DUMP[dialect]);
    if (dialect === "pg") await restorePg(target.databaseUrl, dump);
    else restoreSqlite(sqliteFile(target.databaseUrl, target.dataDir), dump);
    const files = filesDir(target.dataDir);
    if (fs.existsSync(files)) fs.renameSync(files, path.join(staging, "replaced-files"));
    if (fs.existsSync(path.join(staging, FILES))) fs.renameSync(path.join(staging, FILES), files);
    if (fs.existsSync(path.join(staging, SECRET))) {
      fs.chmodSync(path.join(staging, SECRET), 0o600);
      fs.renameSync(path.join(staging, SECRET), path.join(target.dataDir, SECRET));
    }
    restored = true;
    return manifest;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    if (!restored && madeDataDir) fs.rmSync(target.dataDir, { recursive: true, force: true });
  }
}

/** One line about an archive's content, for the commands' output. */
export function summary(manifest: Manifest) {
  const mb = (manifest.bytes / 1e6).toFixed(1);
  return `${manifest.dialect} database at migration ${manifest.migration ?? "(none)"}, ${manifest.files} uploaded files (${mb} MB), made ${manifest.createdAt}`;
}

/** Runs a command: its line on stdout and exit code 0, or one line on stderr and exit code 1. */
export async function command(name: string, fn: () => Promise<string>) {
  try {
    console.log(await fn());
  } catch (error) {
    console.error(`${name}: ${String((error as Error).message ?? error).split("\n")[0]}`);
    process.exitCode = 1;
  }
}
