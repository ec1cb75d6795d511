// Case-insensitive "column contains value" for both dialects (ILIKE on PostgreSQL, LIKE on
// SQLite, which folds ASCII only); % _ and \ in the value match as typed, and the value is always
// a bound parameter.
import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { getDb } from "@db/client";

export function containsText(column: AnyColumn | SQL, value: string): SQL {
  const op = getDb().dialect === "pg" ? sql.raw("ILIKE") : sql.raw("LIKE");
  return sql`${column} ${op} ${`%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} ESCAPE '\\'`;
}
