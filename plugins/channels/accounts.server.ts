// Channel accounts: an admin's mailboxes (and later numbers, pages, bots). Settings that are not
// secret are kept as JSON; passwords and tokens are sealed (app/secrets.server.ts) and opened only
// here, for adapters on the server; nothing in this file's answers for pages carries them.
import { and, asc, eq } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { seal, unseal } from "~/secrets.server";
import type { Channel } from "~/conversation/channels";
import type { ChannelAccount } from "./adapter";

type Row = typeof import("@db/schema/sqlite").channelAccounts.$inferSelect;

const parse = (json: string | null | undefined): Record<string, string> => {
  try {
    const value = JSON.parse(json || "{}");
    return value && typeof value === "object" ? value : {};
  } catch {
    return {};
  }
};

/** The account as an adapter sees it, secrets opened. */
export function openAccount(row: Row): ChannelAccount {
  return {
    id: row.id,
    kind: row.kind as Channel,
    name: row.name,
    address: row.address,
    departmentId: row.departmentId,
    enabled: row.enabled,
    config: parse(row.config),
    secrets: parse(unseal(row.secrets) ?? "{}"),
  };
}

/** The account as a settings page shows it: which secrets are set, never their values. */
export function accountSummary(row: Row) {
  const { secrets, ...account } = openAccount(row);
  return {
    ...account,
    secretsSet: Object.keys(secrets).filter((k) => !!secrets[k]),
    state: row.state,
    lastError: row.lastError,
    checkedAt: row.checkedAt,
    /** The provider said "too many": the account's sends wait until then (null: they go). */
    pausedUntil: row.pausedUntil && row.pausedUntil > Date.now() ? row.pausedUntil : null,
  };
}
export type AccountSummary = ReturnType<typeof accountSummary>;

export async function listAccounts() {
  const { db, schema } = getDb();
  const rows = await db.select().from(schema.channelAccounts).orderBy(asc(schema.channelAccounts.kind), asc(schema.channelAccounts.name));
  return rows.map(accountSummary);
}

export async function accountRow(id: number) {
  if (!Number.isSafeInteger(id)) return undefined;
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.channelAccounts).where(eq(schema.channelAccounts.id, id));
  return row;
}

/** An account with its secrets, for adapters. */
export async function loadAccount(id: number | null | undefined): Promise<ChannelAccount | null> {
  const row = id == null ? undefined : await accountRow(id);
  return row ? openAccount(row) : null;
}

/** Enabled accounts, of one kind or all, with their secrets (watchers, the SMTP listener's recipients). */
export async function enabledAccounts(kind?: Channel): Promise<ChannelAccount[]> {
  const { db, schema } = getDb();
  const a = schema.channelAccounts;
  const rows = await db
    .select()
    .from(a)
    .where(and(eq(a.enabled, true), kind ? eq(a.kind, kind) : undefined))
    .orderBy(asc(a.id));
  return rows.map(openAccount);
}

/** The enabled account customers write to at this address, if any. */
export async function accountByAddress(kind: Channel, address: string): Promise<ChannelAccount | null> {
  const { db, schema } = getDb();
  const a = schema.channelAccounts;
  const [row] = await db
    .select()
    .from(a)
    .where(and(eq(a.kind, kind), eq(a.address, address.trim().toLowerCase()), eq(a.enabled, true)));
  return row ? openAccount(row) : null;
}

export interface AccountInput {
  kind: Channel;
  name: string;
  address: string;
  departmentId: number | null;
  config: Record<string, string>;
  /** Secrets given in the form; a field left empty keeps the stored one. */
  secrets: Record<string, string>;
}

/** Creates an account, or changes one (id given); answers its id. A changed account is tested again. */
export async function saveAccount(input: AccountInput, id?: number, tx?: Tx) {
  const { db, schema } = getDb();
  const a = schema.channelAccounts;
  const now = Date.now();
  const fields = {
    name: input.name.trim(),
    address: input.address.trim().toLowerCase(),
    departmentId: input.departmentId,
    config: JSON.stringify(input.config),
    state: "untested",
    lastError: null,
    checkedAt: null,
    updatedAt: now,
  };
  if (id === undefined) {
    const secrets = Object.fromEntries(Object.entries(input.secrets).filter(([, v]) => v));
    const [row] = await (tx ?? db)
      .insert(a)
      .values({ ...fields, kind: input.kind, secrets: seal(JSON.stringify(secrets)), createdAt: now })
      .returning({ id: a.id });
    return row.id;
  }
  const current = await accountRow(id);
  if (!current) throw new Error(`no channel account ${id}`);
  const kept = parse(unseal(current.secrets) ?? "{}");
  for (const [k, v] of Object.entries(input.secrets)) if (v) kept[k] = v;
  await (tx ?? db)
    .update(a)
    .set({ ...fields, secrets: seal(JSON.stringify(kept)) })
    .where(eq(a.id, id));
  return id;
}

export async function setAccountEnabled(id: number, enabled: boolean) {
  const { db, schema } = getDb();
  await db.update(schema.channelAccounts).set({ enabled, updatedAt: Date.now() }).where(eq(schema.channelAccounts.id, id));
}

/** The outcome of a test or of the last connection: shown on the settings page. */
export async function setAccountState(id: number, outcome: { ok: true } | { ok: false; error: string }) {
  const { db, schema } = getDb();
  await db
    .update(schema.channelAccounts)
    .set(
      outcome.ok
        ? { state: "ok", lastError: null, checkedAt: Date.now() }
        : { state: "failing", lastError: outcome.error.slice(0, 1000), checkedAt: Date.now() },
    )
    .where(eq(schema.channelAccounts.id, id));
}

/** Where an account's polling stands (IMAP UIDVALIDITY and last UID, Graph's delta link). */
export async function readCursor(accountId: number, key: string) {
  const { db, schema } = getDb();
  const c = schema.channelCursors;
  const [row] = await db
    .select({ value: c.value })
    .from(c)
    .where(and(eq(c.accountId, accountId), eq(c.key, key)));
  return row?.value;
}

export async function writeCursor(accountId: number, key: string, value: string, tx?: Tx) {
  const { db, schema } = getDb();
  const c = schema.channelCursors;
  const updatedAt = Date.now();
  await (tx ?? db)
    .insert(c)
    .values({ accountId, key, value, updatedAt })
    .onConflictDoUpdate({ target: [c.accountId, c.key], set: { value, updatedAt } });
}

/**
 * The account a provider's event belongs to when one app (one signing secret) serves several of our
 * accounts at one callback URL: the account that took the call when `objectId` is its own
 * (`config[idField]`), else the enabled account of these kinds with that id and the same
 * `secrets[secretField]` (only the same app can have signed the call); null when none.
 */
export async function sameAppAccount(took: ChannelAccount, kinds: Channel[], idField: string, objectId: string, secretField: string) {
  if (!objectId || took.config[idField] === objectId) return took;
  const secret = took.secrets[secretField];
  if (!secret) return null;
  for (const kind of kinds)
    for (const other of await enabledAccounts(kind)) if (other.config[idField] === objectId && other.secrets[secretField] === secret) return other;
  return null;
}
