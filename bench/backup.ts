// Time of `npm run backup` and `npm run restore` (app/backup/backup.server.ts) on a small install
// and on one of about 100,000 messages, on SQLite and PostgreSQL.
//   npm run bench:backup
// Settings: BENCH_BACKUP_DIR (default /tmp/omnidesk-bench-backup, the installs are kept there and
// reused), BENCH_TICKETS (default 33,000: about 100,000 messages), BENCH_FILES (uploaded files of
// 100 KB each, default 200), TEST_DATABASE_URL (the PostgreSQL server, default the tests' one).
// Prints per dialect and size: the archive's size, backup and restore seconds (into an empty data
// dir and a new database).
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { sql } from "drizzle-orm";
import { openDatabase, rows, type Dialect } from "../db/client";
import { isEmpty, seedDemo } from "../app/seed/seed";
import { filesDir, LocalDiskStorage } from "../app/storage.server";
import { backup, restore, type Target } from "../app/backup/backup.server";

const root = path.resolve(process.env.BENCH_BACKUP_DIR || "/tmp/omnidesk-bench-backup");
const serverUrl = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const SIZES = {
  small: { tickets: 300, files: 5 },
  large: { tickets: Number(process.env.BENCH_TICKETS || 33_000), files: Number(process.env.BENCH_FILES || 200) },
};

function pgUrl(name: string) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin(statement: string) {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(statement).finally(() => client.end());
}

/** The install of that size, seeded on first use. */
async function install(dialect: Dialect, size: keyof typeof SIZES): Promise<Target> {
  const name = `omnidesk_bench_backup_${size}`;
  const dataDir = path.join(root, `${dialect}-${size}`);
  if (dialect === "pg") await admin(`CREATE DATABASE ${name}`).catch(() => undefined);
  const target = { dataDir, databaseUrl: dialect === "pg" ? pgUrl(name) : "" };
  const handle = openDatabase(target.databaseUrl || path.join(dataDir, "omnidesk.sqlite"));
  await handle.migrate();
  if (await isEmpty(handle)) {
    const started = Date.now();
    await seedDemo(handle, { tickets: SIZES[size].tickets });
    const storage = new LocalDiskStorage(filesDir(dataDir));
    for (let i = 0; i < SIZES[size].files; i++) await storage.put(randomBytes(100_000));
    console.log(`  seeded ${dialect} ${size} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  const [{ n }] = await rows<{ n: number }>(sql`select count(*) as n from messages`, handle);
  console.log(`  ${dialect} ${size}: ${SIZES[size].tickets} tickets, ${Number(n)} messages, ${SIZES[size].files} files of 100 KB`);
  await handle.close();
  return target;
}

const seconds = (from: number) => ((performance.now() - from) / 1000).toFixed(2);

for (const dialect of ["sqlite", "pg"] as Dialect[]) {
  for (const size of Object.keys(SIZES) as (keyof typeof SIZES)[]) {
    const source = await install(dialect, size);
    const out = path.join(root, "archives");
    fs.rmSync(out, { recursive: true, force: true });
    let started = performance.now();
    const { file } = await backup({ out, target: source });
    const backupTime = seconds(started);
    const restoredName = `omnidesk_bench_backup_restored`;
    if (dialect === "pg") {
      await admin(`DROP DATABASE IF EXISTS ${restoredName}`);
      await admin(`CREATE DATABASE ${restoredName}`);
    }
    const target = { dataDir: path.join(root, "restored"), databaseUrl: dialect === "pg" ? pgUrl(restoredName) : "" };
    fs.rmSync(target.dataDir, { recursive: true, force: true });
    started = performance.now();
    await restore({ archive: file, target });
    const restoreTime = seconds(started);
    const mb = (fs.statSync(file).size / 1e6).toFixed(1);
    console.log(
      `${dialect.padEnd(6)} ${size.padEnd(5)}  archive ${mb.padStart(6)} MB  backup ${backupTime.padStart(6)} s  restore ${restoreTime.padStart(6)} s`,
    );
    fs.rmSync(target.dataDir, { recursive: true, force: true });
    if (dialect === "pg") await admin(`DROP DATABASE ${restoredName}`);
  }
}
