// Agents' SIP accounts (spec section 3: sip_number, password, active) and the call server's
// address. This table is the ONE list Kamailio authenticates REGISTERs against: its config
// (sip/kamailio.cfg) asks POST /hooks/sip/auth for the account's HA1 (sipAuthHook below), so
// there is no second user list to keep in step. Passwords are sealed at rest (app/secrets.server.ts).
import { createHash, timingSafeEqual } from "node:crypto";
import { sipHookSecret } from "./sip/hook-secret";
import { and, asc, eq, isNull, ne } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { seal, unseal } from "~/secrets.server";
import { audit } from "~/accounts/audit.server";

export { sipHookSecret };

/** Extensions are 2 to 15 digits (E.164's length); the softphone dials them as sip:<number>@<domain>. */
export const sipNumberSchema = z
  .string()
  .trim()
  .regex(/^\d{2,15}$/, "plugin_calls.errors.number");

export const sipAccountForm = z.object({
  userId: z.coerce.number().int().positive("plugin_calls.errors.user"),
  sipNumber: sipNumberSchema,
  // empty on an edit: the stored password stays
  password: z.string().max(128, "plugin_calls.errors.password").optional().default(""),
  active: z.preprocess((v) => v === "1" || v === "on" || v === true, z.boolean()),
});
export type SipAccountInput = z.infer<typeof sipAccountForm>;

/** Where the softphone finds the call server (env, set by `npm run sip:up` or the operator). */
export function sipServer() {
  return {
    /** host the browser reaches Kamailio's WebSocket on */
    host: process.env.SIP_PUBLIC_HOST || process.env.SIP_HOST || "127.0.0.1",
    wsPort: Number(process.env.SIP_WS_PORT || 5066),
    /** ws or wss (wss when Kamailio sits behind a TLS proxy) */
    wsScheme: process.env.SIP_WS_SCHEME === "wss" ? "wss" : "ws",
    /** the SIP domain and digest realm of every account */
    domain: process.env.SIP_DOMAIN || "omnidesk.local",
    /** TURN relays for agents behind NAT (coturn), comma-separated turn: URLs */
    turn: (process.env.TURN_URLS || "")
      .split(",")
      .map((u) => u.trim())
      .filter(Boolean)
      .map((urls) => ({ urls, username: process.env.TURN_USERNAME || undefined, credential: process.env.TURN_PASSWORD || undefined })),
  };
}

export async function listSipAccounts() {
  const { db, schema } = getDb();
  const rows = await db
    .select({
      id: schema.sipAccounts.id,
      userId: schema.sipAccounts.userId,
      sipNumber: schema.sipAccounts.sipNumber,
      active: schema.sipAccounts.active,
      username: schema.users.username,
      name: schema.users.name,
    })
    .from(schema.sipAccounts)
    .innerJoin(schema.users, eq(schema.users.id, schema.sipAccounts.userId))
    .orderBy(asc(schema.sipAccounts.sipNumber));
  return rows;
}

/** Users who may get an account (not disabled), for the form's select. */
export async function sipCandidates() {
  const { db, schema } = getDb();
  return db
    .select({ id: schema.users.id, username: schema.users.username, name: schema.users.name })
    .from(schema.users)
    .where(isNull(schema.users.disabledAt))
    .orderBy(asc(schema.users.username));
}

/** The user's own account when it is active and the user is not disabled: the softphone's credentials. */
export async function activeSipAccountOf(userId: number) {
  const { db, schema } = getDb();
  const [row] = await db
    .select({ sipNumber: schema.sipAccounts.sipNumber, password: schema.sipAccounts.password, active: schema.sipAccounts.active })
    .from(schema.sipAccounts)
    .innerJoin(schema.users, eq(schema.users.id, schema.sipAccounts.userId))
    .where(and(eq(schema.sipAccounts.userId, userId), eq(schema.sipAccounts.active, true), isNull(schema.users.disabledAt)));
  if (!row) return null;
  const password = unseal(row.password);
  return password ? { sipNumber: row.sipNumber, password } : null;
}

export type SaveResult = { ok: true; id: number } | { ok: false; errors: Record<string, string> };

/** Adds or changes the user's one account (an agent has at most one extension). */
export async function saveSipAccount(input: SipAccountInput, by: { actor: { id: number; name: string }; ip?: string }): Promise<SaveResult> {
  const handle = getDb();
  const { schema } = handle;
  const now = Date.now();
  return handle.transaction(async (tx): Promise<SaveResult> => {
    const [user] = await tx.select({ id: schema.users.id }).from(schema.users).where(eq(schema.users.id, input.userId));
    if (!user) return { ok: false as const, errors: { userId: "plugin_calls.errors.user" } };
    const [taken] = await tx
      .select({ id: schema.sipAccounts.id })
      .from(schema.sipAccounts)
      .where(and(eq(schema.sipAccounts.sipNumber, input.sipNumber), ne(schema.sipAccounts.userId, input.userId)));
    if (taken) return { ok: false as const, errors: { sipNumber: "plugin_calls.errors.numberTaken" } };
    const [existing] = await tx.select().from(schema.sipAccounts).where(eq(schema.sipAccounts.userId, input.userId));
    if (!existing && input.password.length < 8) return { ok: false as const, errors: { password: "plugin_calls.errors.password" } };
    if (existing && input.password && input.password.length < 8) return { ok: false as const, errors: { password: "plugin_calls.errors.password" } };
    let id: number;
    if (existing) {
      await tx
        .update(schema.sipAccounts)
        .set({ sipNumber: input.sipNumber, active: input.active, updatedAt: now, ...(input.password ? { password: seal(input.password) } : {}) })
        .where(eq(schema.sipAccounts.id, existing.id));
      id = existing.id;
    } else {
      const [row] = await tx
        .insert(schema.sipAccounts)
        .values({ userId: input.userId, sipNumber: input.sipNumber, password: seal(input.password), active: input.active, createdAt: now, updatedAt: now })
        .returning({ id: schema.sipAccounts.id });
      id = row.id;
    }
    await audit(
      {
        action: existing ? "sip.account_updated" : "sip.account_created",
        actor: by.actor,
        target: { type: "sip_account", id: input.sipNumber },
        detail: { to: input.userId, enabled: input.active, secretsChanged: Boolean(input.password) },
        ip: by.ip,
      },
      tx,
    );
    return { ok: true as const, id };
  });
}

export async function deleteSipAccount(id: number, by: { actor: { id: number; name: string }; ip?: string }) {
  const handle = getDb();
  const { schema } = handle;
  return handle.transaction(async (tx) => {
    const [row] = await tx.delete(schema.sipAccounts).where(eq(schema.sipAccounts.id, id)).returning({ sipNumber: schema.sipAccounts.sipNumber });
    if (!row) return false;
    await audit({ action: "sip.account_deleted", actor: by.actor, target: { type: "sip_account", id: row.sipNumber }, ip: by.ip }, tx);
    return true;
  });
}

/** Digest HA1 of RFC 2617: md5(user:realm:password). */
export const ha1 = (user: string, realm: string, password: string) => createHash("md5").update(`${user}:${realm}:${password}`).digest("hex");

export function sameSecret(given: string, expected: string) {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Kamailio's auth hook: the HA1 of an active account of a user who is not disabled, or 404; 403
 * without the shared secret. Only the digest's HA1 leaves the product, never the password.
 */
export async function sipAuthHook(secret: string, user: string, realm: string): Promise<{ status: number; body: string }> {
  if (!sameSecret(secret, sipHookSecret())) return { status: 403, body: "forbidden" };
  const number = sipNumberSchema.safeParse(user);
  if (!number.success || !realm || realm.length > 255) return { status: 404, body: "" };
  const { db, schema } = getDb();
  const [row] = await db
    .select({ password: schema.sipAccounts.password })
    .from(schema.sipAccounts)
    .innerJoin(schema.users, eq(schema.users.id, schema.sipAccounts.userId))
    .where(and(eq(schema.sipAccounts.sipNumber, number.data), eq(schema.sipAccounts.active, true), isNull(schema.users.disabledAt)));
  const password = row ? unseal(row.password) : null;
  if (!password) return { status: 404, body: "" };
  return { status: 200, body: ha1(number.data, realm, password) };
}

/** The auth check's SIP fields (spec section 3): the user's account list, the server, TURN. */
export async function sipAuthSettings(user: { id: number }) {
  const account = await activeSipAccountOf(user.id);
  const server = sipServer();
  return {
    sip: account ? [{ sip_number: account.sipNumber, password: account.password, active: 1 }] : [],
    sipIp: account ? server.host : "",
    sipPort: account ? String(server.wsPort) : "",
    turn: server.turn,
  };
}
