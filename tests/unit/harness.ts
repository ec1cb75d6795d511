// A fresh database per test suite, on SQLite (temp file) or PostgreSQL (a new database on the
// server at TEST_DATABASE_URL), installed as the process-wide handle the models use.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openDatabase, setDb, type DbHandle, type Dialect } from "@db/client";

export const DIALECTS: Dialect[] = ["sqlite", "pg"];
export const PG_URL = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";

export interface TestDb {
  handle: DbHandle;
  /** Where it is, for a second connection (another node). */
  url: string;
  cleanup(): Promise<void>;
}

export async function createTestDb(dialect: Dialect): Promise<TestDb> {
  if (dialect === "sqlite") {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-test-"));
    const file = path.join(dir, "test.sqlite");
    const handle = openDatabase(file);
    await handle.migrate();
    setDb(handle);
    return {
      handle,
      url: file,
      async cleanup() {
        setDb(undefined);
        await handle.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const database = await createPgDatabase();
  const handle = openDatabase(database.url);
  await handle.migrate();
  setDb(handle);
  return {
    handle,
    url: database.url,
    async cleanup() {
      setDb(undefined);
      await handle.close();
      await database.drop();
    },
  };
}

/** An empty database of its own on the test server; drop() once its connections are closed. */
export async function createPgDatabase() {
  const name = `omnidesk_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      // not WITH (FORCE): killing connections the pool is still closing surfaces as unhandled
      // errors; the pool's goodbyes arrive within moments
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query(`DROP DATABASE IF EXISTS ${name}`);
          break;
        } catch (error) {
          if (attempt >= 50 || !/being accessed by other users/.test(String(error))) throw error;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      await client.end();
    },
  };
}
