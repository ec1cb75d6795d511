// The SQLite and PostgreSQL schemas must describe the same tables, columns, keys and indexes.
import { describe, expect, it } from "vitest";
import { getTableConfig as sqliteConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { getTableConfig as pgConfig, PgTable } from "drizzle-orm/pg-core";
import * as sqliteSchema from "@db/schema/sqlite";
import * as pgSchema from "@db/schema/pg";

// column types that are the same thing in both dialects
const FAMILY: Record<string, string> = {
  SQLiteInteger: "integer",
  SQLiteBoolean: "boolean",
  SQLiteText: "text",
  SQLiteTimestamp: "integer",
  PgInteger: "integer",
  PgSerial: "integer",
  PgBigInt53: "integer",
  PgBoolean: "boolean",
  PgText: "text",
};

type Described = {
  columns: Record<string, { type: string; notNull: boolean; primary: boolean; hasDefault: boolean; default: unknown }>;
  primaryKeys: string[][];
  indexes: string[];
  foreignKeys: string[];
};

function describeSqlite(table: SQLiteTable): Described {
  const c = sqliteConfig(table);
  return normalise(
    c.columns,
    c.primaryKeys.map((pk) => pk.columns.map((col) => col.name)),
    c.indexes.map((i) => `${i.config.name}:${i.config.unique}:${i.config.columns.map((col) => (col as { name: string }).name).join(",")}`),
    c.foreignKeys.map((fk) => {
      const r = fk.reference();
      return `${r.columns.map((x) => x.name)}->${sqliteConfig(r.foreignTable).name}.${r.foreignColumns.map((x) => x.name)}:${fk.onDelete}`;
    }),
  );
}

function describePg(table: PgTable): Described {
  const c = pgConfig(table);
  return normalise(
    c.columns,
    c.primaryKeys.map((pk) => pk.columns.map((col) => col.name)),
    c.indexes.map((i) => `${i.config.name}:${i.config.unique}:${i.config.columns.map((col) => (col as { name: string }).name).join(",")}`),
    c.foreignKeys.map((fk) => {
      const r = fk.reference();
      return `${r.columns.map((x) => x.name)}->${pgConfig(r.foreignTable).name}.${r.foreignColumns.map((x) => x.name)}:${fk.onDelete}`;
    }),
  );
}

function normalise(
  columns: { name: string; columnType: string; notNull: boolean; primary: boolean; hasDefault: boolean; default: unknown }[],
  primaryKeys: string[][],
  indexes: string[],
  foreignKeys: string[],
): Described {
  const out: Described["columns"] = {};
  for (const col of columns) {
    out[col.name] = {
      type: FAMILY[col.columnType] ?? col.columnType,
      notNull: col.notNull || col.primary,
      primary: col.primary,
      // a serial key has a default in pg and autoincrement in SQLite: the same thing
      hasDefault: col.primary ? false : col.hasDefault,
      default: col.default,
    };
  }
  return { columns: out, primaryKeys, indexes: indexes.sort(), foreignKeys: foreignKeys.sort() };
}

const sqliteTables = Object.entries(sqliteSchema).filter(([, v]) => v instanceof SQLiteTable) as [string, SQLiteTable][];
const pgTables = Object.entries(pgSchema).filter(([, v]) => v instanceof PgTable) as [string, PgTable][];

describe("schema drift", () => {
  it("has the same tables in both dialects", () => {
    expect(pgTables.map(([name]) => name).sort()).toEqual(sqliteTables.map(([name]) => name).sort());
    expect(sqliteTables.length).toBeGreaterThanOrEqual(10);
  });

  for (const [name, table] of sqliteTables) {
    it(`table ${name} matches`, () => {
      const other = pgTables.find(([n]) => n === name)?.[1];
      expect(other, `pg schema lacks ${name}`).toBeDefined();
      expect(describePg(other!)).toEqual(describeSqlite(table));
    });
  }

  it("knows every column type it meets", () => {
    const types = [...sqliteTables.flatMap(([, t]) => sqliteConfig(t).columns), ...pgTables.flatMap(([, t]) => pgConfig(t).columns)].map((c) => c.columnType);
    expect(types.filter((t) => !(t in FAMILY))).toEqual([]);
  });
});
