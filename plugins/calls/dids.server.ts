// DIDs: the numbers a SIP trunk delivers calls to (spec section 3 `did`; /call_config "DIDs and
// their queues"). Each rings a queue (a department's agents with an active SIP account and/or agents
// named one by one) for its ring timeout, then, with voicemail on, the product's own voicemail
// answers (voicemail.server.ts) with its greeting and records the caller. Kamailio never keeps a
// list of its own: for a call from the trunk it asks POST /hooks/sip/did which extensions to ring
// (didHook below), in the same way it asks the auth hook for an account's HA1 (ADR 052).
import { and, asc, eq, inArray, isNull, ne, or } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { audit } from "~/accounts/audit.server";
import { sameSecret, sipHookSecret } from "./sip.server";

/** Ring timeout when the form leaves it out (the spec names none). */
export const DEFAULT_RING_TIMEOUT = 20;
export const MIN_RING_TIMEOUT = 5;
export const MAX_RING_TIMEOUT = 120;
export const MAX_GREETING = 500;
/** What the voicemail says when a DID has no greeting of its own. */
export const DEFAULT_GREETING = "Sorry, nobody can take your call right now. Please leave a message after the tone.";

/** E.164 as the product keeps a DID: + then 7 to 15 digits, the first not 0. Spaces, dashes and dots may be typed. */
export const didNumberSchema = z
  .string()
  .trim()
  .transform((v) => v.replace(/[\s().-]/g, ""))
  .transform((v) => (v.startsWith("00") ? `+${v.slice(2)}` : v))
  .pipe(z.string().regex(/^\+[1-9]\d{6,14}$/, "plugin_calls.errors.did"));

const idList = z
  .string()
  .optional()
  .default("")
  .transform((v) =>
    v
      .split(/[\n,]/)
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.coerce.number().int().positive().max(2_147_483_647, "plugin_calls.errors.didAgents")).max(200, "plugin_calls.errors.didAgents"));

export const didForm = z
  .object({
    number: didNumberSchema,
    departmentId: z
      .string()
      .optional()
      .default("")
      .transform((v) => v.trim())
      .refine((v) => v === "" || /^\d{1,9}$/.test(v), "plugin_calls.errors.didQueue")
      .transform((v) => (v === "" ? null : Number(v))),
    agentIds: idList,
    ringTimeout: z
      .string()
      .optional()
      .default("")
      .transform((v) => v.trim())
      .refine((v) => v === "" || (/^\d{1,4}$/.test(v) && Number(v) >= MIN_RING_TIMEOUT && Number(v) <= MAX_RING_TIMEOUT), "plugin_calls.errors.ringTimeout")
      .transform((v) => (v === "" ? DEFAULT_RING_TIMEOUT : Number(v))),
    voicemail: z.preprocess((v) => v === "1" || v === "on" || v === true, z.boolean()),
    greeting: z.string().trim().max(MAX_GREETING, "plugin_calls.errors.greeting").optional().default(""),
  })
  // a queue to ring: checked on what was typed, so it is said along with the other fields' errors
  .and(
    z
      .object({ departmentId: z.unknown(), agentIds: z.unknown() })
      .superRefine((v, ctx) => {
        const empty = (x: unknown) => x == null || String(x).trim() === "";
        if (empty(v.departmentId) && empty(v.agentIds)) ctx.addIssue({ code: "custom", path: ["agentIds"], message: "plugin_calls.errors.didQueue" });
      })
      .transform(() => ({})),
  );
export type DidInput = z.infer<typeof didForm>;

type By = { actor: { id: number; name: string }; ip?: string };
export type SaveDidResult = { ok: true; id: number } | { ok: false; errors: Record<string, string> };

/** Every DID with its department's name and its agents' ids, by number. */
export async function listDids() {
  const { db, schema } = getDb();
  const d = schema.callDids;
  const [rows, agents] = await Promise.all([
    db
      .select({
        id: d.id,
        number: d.number,
        departmentId: d.departmentId,
        departmentName: schema.departments.name,
        ringTimeoutSeconds: d.ringTimeoutSeconds,
        voicemail: d.voicemail,
        greeting: d.greeting,
      })
      .from(d)
      .leftJoin(schema.departments, eq(schema.departments.id, d.departmentId))
      .orderBy(asc(d.number)),
    db
      .select({ didId: schema.callDidAgents.didId, userId: schema.users.id, username: schema.users.username })
      .from(schema.callDidAgents)
      .innerJoin(schema.users, eq(schema.users.id, schema.callDidAgents.userId))
      .orderBy(asc(schema.users.username)),
  ]);
  return rows.map((r) => {
    const mine = agents.filter((a) => a.didId === r.id);
    return { ...r, departmentName: r.departmentName ?? "", agentIds: mine.map((a) => a.userId), agents: mine.map((a) => a.username) };
  });
}

/** The departments a DID may ring (the form's choice). */
export async function didDepartments() {
  const { db, schema } = getDb();
  return db.select({ id: schema.departments.id, name: schema.departments.name }).from(schema.departments).orderBy(asc(schema.departments.name));
}

/** Adds a DID (id null) or changes one; its named agents are replaced in the same transaction. */
export async function saveDid(id: number | null, input: DidInput, by: By): Promise<SaveDidResult> {
  const handle = getDb();
  const { schema } = handle;
  const d = schema.callDids;
  const now = Date.now();
  return handle.transaction(async (tx): Promise<SaveDidResult> => {
    if (id != null) {
      const [existing] = await tx.select({ id: d.id }).from(d).where(eq(d.id, id));
      if (!existing) return { ok: false, errors: { number: "plugin_calls.errors.didGone" } };
    }
    const [taken] = await tx
      .select({ id: d.id })
      .from(d)
      .where(id == null ? eq(d.number, input.number) : and(eq(d.number, input.number), ne(d.id, id)));
    if (taken) return { ok: false, errors: { number: "plugin_calls.errors.didTaken" } };
    if (input.departmentId != null) {
      const [dep] = await tx.select({ id: schema.departments.id }).from(schema.departments).where(eq(schema.departments.id, input.departmentId));
      if (!dep) return { ok: false, errors: { departmentId: "plugin_calls.errors.didQueue" } };
    }
    const agentIds = [...new Set(input.agentIds)];
    if (agentIds.length) {
      const found = await tx.select({ id: schema.users.id }).from(schema.users).where(inArray(schema.users.id, agentIds));
      if (found.length !== agentIds.length) return { ok: false, errors: { agentIds: "plugin_calls.errors.didAgents" } };
    }
    const values = {
      number: input.number,
      departmentId: input.departmentId,
      ringTimeoutSeconds: input.ringTimeout,
      voicemail: input.voicemail,
      greeting: input.greeting,
      updatedAt: now,
    };
    let didId: number;
    if (id == null) {
      const [row] = await tx
        .insert(d)
        .values({ ...values, createdAt: now })
        .returning({ id: d.id });
      didId = row.id;
    } else {
      await tx.update(d).set(values).where(eq(d.id, id));
      await tx.delete(schema.callDidAgents).where(eq(schema.callDidAgents.didId, id));
      didId = id;
    }
    if (agentIds.length) await tx.insert(schema.callDidAgents).values(agentIds.map((userId) => ({ didId, userId })));
    await audit(
      {
        action: id == null ? "sip.did_created" : "sip.did_updated",
        actor: by.actor,
        target: { type: "did", id: input.number },
        detail: { department: input.departmentId, agents: agentIds.length, ringTimeout: input.ringTimeout, voicemail: input.voicemail },
        ip: by.ip,
      },
      tx,
    );
    return { ok: true, id: didId };
  });
}

export async function deleteDid(id: number, by: By) {
  const handle = getDb();
  const { schema } = handle;
  return handle.transaction(async (tx) => {
    const [row] = await tx.delete(schema.callDids).where(eq(schema.callDids.id, id)).returning({ number: schema.callDids.number });
    if (!row) return false;
    await audit({ action: "sip.did_deleted", actor: by.actor, target: { type: "did", id: row.number }, ip: by.ip }, tx);
    return true;
  });
}

/** A number as a trunk may send it in the Request-URI (60312345678, +60312345678, 0060312345678) in E.164, or null. */
export function didOf(raw: string) {
  const parsed = didNumberSchema.safeParse(/^\d/.test(raw.trim()) && !raw.trim().startsWith("00") ? `+${raw.trim()}` : raw);
  return parsed.success ? parsed.data : null;
}

/** The DID row of a number as the trunk sent it, or null. */
export async function didByNumber(raw: string) {
  const number = didOf(raw);
  if (!number) return null;
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.callDids).where(eq(schema.callDids.number, number));
  return row ?? null;
}

/**
 * Whom a DID rings: the extensions of active SIP accounts of users who are not disabled, in its
 * department or named on it, by extension; with its timeout and voicemail switch. Null: no such DID.
 */
export async function didTargets(raw: string) {
  const did = await didByNumber(raw);
  if (!did) return null;
  const { db, schema } = getDb();
  const s = schema.sipAccounts;
  const u = schema.users;
  const named = db.select({ userId: schema.callDidAgents.userId }).from(schema.callDidAgents).where(eq(schema.callDidAgents.didId, did.id));
  const rows = await db
    .select({ extension: s.sipNumber, userId: u.id })
    .from(s)
    .innerJoin(u, eq(u.id, s.userId))
    .where(
      and(
        eq(s.active, true),
        isNull(u.disabledAt),
        did.departmentId != null ? or(eq(u.departmentId, did.departmentId), inArray(u.id, named)) : inArray(u.id, named),
      ),
    )
    .orderBy(asc(s.sipNumber));
  return {
    did: did.number,
    departmentId: did.departmentId,
    extensions: rows.map((r) => r.extension),
    ringTimeoutSeconds: did.ringTimeoutSeconds,
    voicemail: did.voicemail,
    greeting: did.greeting || DEFAULT_GREETING,
  };
}

/**
 * Kamailio's DID hook (a call from the trunk): 403 without the shared secret, 404 for a number that
 * is no DID, else 200 with one line Kamailio's config splits: "<timeout s>;<voicemail 0|1>;<ext>,<ext>,...".
 */
export async function didHook(secret: string, did: string): Promise<{ status: number; body: string }> {
  if (!sameSecret(secret, sipHookSecret())) return { status: 403, body: "forbidden" };
  const targets = did.length <= 40 ? await didTargets(did) : null;
  if (!targets) return { status: 404, body: "" };
  return { status: 200, body: `${targets.ringTimeoutSeconds};${targets.voicemail ? 1 : 0};${targets.extensions.join(",")}` };
}
