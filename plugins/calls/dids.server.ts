// DIDs: the numbers a SIP trunk delivers calls to (spec section 3 `did`; /call_config "DIDs and
// their queues"). Each rings a queue (a department's agents with an active SIP account and/or agents
// named one by one) for its ring timeout, then, with voicemail on, the product's own voicemail
// answers (voicemail.server.ts) with its greeting and records the caller. Kamailio never keeps a
// list of its own: for a call from the trunk it asks POST /hooks/sip/did which extensions to ring
// (didHook below), in the same way it asks the auth hook for an account's HA1 (ADR 052).
//
// Ring strategies (ADR 054): ring_all rings every agent of the queue at once for the ring timeout
// (the default). round_robin and longest_idle ring one agent at a time, each for the ring timeout,
// in the order the hook answers (Kamailio tries the next on no answer, busy or decline, serial
// forking in its failure route), then voicemail:
// - round_robin: by extension, starting with the one after the DID's last (the extension the last
//   call started with, or the one who answered it), so each call starts one agent further on;
// - longest_idle: the agent whose last call ended longest ago first (never on a call: first of all;
//   the after-call work the agent reported counts as busy), agents on a call or ringing now last.
// Whatever the strategy, only agents whose status is Online are rung.
import { and, asc, eq, inArray, isNull, ne, or, sql } from "drizzle-orm";
import { z } from "zod";
import { getDb, type Tx } from "@db/client";
import { audit } from "~/accounts/audit.server";
import { sameSecret, sipHookSecret } from "./sip.server";
import { DEFAULT_RING_TIMEOUT, MAX_GREETING, MAX_RING_TIMEOUT, MIN_RING_TIMEOUT, RING_STRATEGIES, type RingStrategy } from "./dids";

export { DEFAULT_RING_TIMEOUT, MAX_GREETING, MAX_RING_TIMEOUT, MIN_RING_TIMEOUT, RING_STRATEGIES, type RingStrategy };

/** One agent after another rings for at most this long in all (the rest of the queue is not tried; then voicemail). */
export const MAX_SERIAL_RING_SECONDS = 300;
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
    strategy: z
      .string()
      .optional()
      .default("")
      .transform((v) => v.trim() || "ring_all")
      .pipe(z.enum(RING_STRATEGIES, { message: "plugin_calls.errors.strategy" })),
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
        ringStrategy: d.ringStrategy,
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
      ringStrategy: input.strategy,
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
        detail: {
          department: input.departmentId,
          agents: agentIds.length,
          ringTimeout: input.ringTimeout,
          voicemail: input.voicemail,
          strategy: input.strategy,
        },
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
 * department or named on it, in the order of its ring strategy (ring_all: by extension); with its
 * timeout and voicemail switch. Null: no such DID. A round robin DID's next start is moved on here
 * (`advance`: Kamailio's hook; a look that rings nobody leaves it).
 */
export async function didTargets(raw: string, opts: { advance?: boolean; now?: number } = {}) {
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
        // an agent who set Away, Busy, a break or a status of the admin's is not rung (as a live
        // chat is offered only to Online agents); with nobody Online the call goes to voicemail
        eq(u.status, "ONLINE"),
        did.departmentId != null ? or(eq(u.departmentId, did.departmentId), inArray(u.id, named)) : inArray(u.id, named),
      ),
    )
    .orderBy(asc(s.sipNumber));
  const strategy: RingStrategy = (RING_STRATEGIES as readonly string[]).includes(did.ringStrategy) ? (did.ringStrategy as RingStrategy) : "ring_all";
  let extensions = rows.map((r) => r.extension);
  if (strategy === "round_robin") extensions = opts.advance ? await advanceRoundRobin(did.id, extensions) : roundRobinOrder(extensions, did.roundRobinLast);
  else if (strategy === "longest_idle") extensions = longestIdleOrder(rows, await idleSince(rows, opts.now ?? Date.now()));
  // one at a time: as many as ring within MAX_SERIAL_RING_SECONDS
  if (strategy !== "ring_all") extensions = extensions.slice(0, Math.max(1, Math.floor(MAX_SERIAL_RING_SECONDS / did.ringTimeoutSeconds)));
  return {
    did: did.number,
    departmentId: did.departmentId,
    strategy,
    extensions,
    ringTimeoutSeconds: did.ringTimeoutSeconds,
    voicemail: did.voicemail,
    greeting: did.greeting || DEFAULT_GREETING,
  };
}

/** Extensions (sorted) starting with the first after `last` (which may be gone from the queue), wrapping round. */
export function roundRobinOrder(sorted: string[], last: string) {
  if (!last) return sorted;
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const start = sorted.findIndex((e) => cmp(e, last) > 0);
  return start <= 0 ? sorted : [...sorted.slice(start), ...sorted.slice(0, start)];
}

/**
 * The round robin order of a DID's call, and its start kept as the DID's last, set only if no other
 * call moved it meanwhile (compare and set: two calls at once start with different agents).
 */
async function advanceRoundRobin(didId: number, sorted: string[]) {
  const { db, schema } = getDb();
  const d = schema.callDids;
  for (let attempt = 0; attempt < 5; attempt++) {
    const [row] = await db.select({ last: d.roundRobinLast }).from(d).where(eq(d.id, didId));
    if (!row) return sorted;
    const order = roundRobinOrder(sorted, row.last);
    if (!order.length) return order;
    const moved = await db
      .update(d)
      .set({ roundRobinLast: order[0] })
      .where(and(eq(d.id, didId), eq(d.roundRobinLast, row.last)))
      .returning({ id: d.id });
    if (moved.length) return order;
  }
  return roundRobinOrder(sorted, "");
}

/** A round robin DID's call was answered: the next call starts after the agent who answered. */
export async function roundRobinAnswered(tx: Tx, did: string, extension: string) {
  const { schema } = getDb();
  const d = schema.callDids;
  await tx
    .update(d)
    .set({ roundRobinLast: extension })
    .where(and(eq(d.number, did), eq(d.ringStrategy, "round_robin")));
}

/**
 * When each agent became idle: the end of their last call (with its after-call work when reported),
 * 0 when they never had one, Infinity while on a call or ringing (a call they are the agent of, or
 * a party to by extension).
 */
async function idleSince(agents: { extension: string; userId: number }[], now: number) {
  const since = new Map<number, number>(agents.map((a) => [a.userId, 0]));
  if (!agents.length) return since;
  const { db, schema } = getDb();
  const c = schema.calls;
  const ids = agents.map((a) => a.userId);
  const exts = agents.map((a) => a.extension);
  const byUser = new Map(agents.map((a) => [a.extension, a.userId]));
  const free = sql<number>`max(case when ${c.state} = 'ended' then ${c.endedAt} + coalesce(${c.acwMs}, 0) else 0 end)`;
  const busy = sql<number>`max(case when ${c.state} = 'ended' then 0 else 1 end)`;
  const [own, from, to] = await Promise.all([
    db.select({ key: c.agentUserId, free, busy }).from(c).where(inArray(c.agentUserId, ids)).groupBy(c.agentUserId),
    db.select({ key: c.fromNumber, free, busy }).from(c).where(inArray(c.fromNumber, exts)).groupBy(c.fromNumber),
    db.select({ key: c.toNumber, free, busy }).from(c).where(inArray(c.toNumber, exts)).groupBy(c.toNumber),
  ]);
  const note = (userId: number | undefined, r: { free: number; busy: number }) => {
    if (userId == null) return;
    const at = Number(r.busy) > 0 ? Infinity : Math.min(now, Number(r.free) || 0);
    since.set(userId, Math.max(since.get(userId) ?? 0, at));
  };
  for (const r of own) note(r.key ?? undefined, r);
  for (const r of [...from, ...to]) note(byUser.get(r.key), r);
  return since;
}

/** Longest idle first (ties by extension); agents busy now last. */
export function longestIdleOrder(agents: { extension: string; userId: number }[], since: Map<number, number>) {
  return [...agents]
    .sort((a, b) => (since.get(a.userId) ?? 0) - (since.get(b.userId) ?? 0) || (a.extension < b.extension ? -1 : a.extension > b.extension ? 1 : 0))
    .map((a) => a.extension);
}

/**
 * Kamailio's DID hook (a call from the trunk): 403 without the shared secret, 404 for a number that
 * is no DID, else 200 with one line Kamailio's config splits:
 * "<timeout s>;<voicemail 0|1>;<ext>,<ext>,...;<all|serial>" (serial: one extension after another, in that order).
 */
export async function didHook(secret: string, did: string): Promise<{ status: number; body: string }> {
  if (!sameSecret(secret, sipHookSecret())) return { status: 403, body: "forbidden" };
  const targets = did.length <= 40 ? await didTargets(did, { advance: true }) : null;
  if (!targets) return { status: 404, body: "" };
  const mode = targets.strategy === "ring_all" ? "all" : "serial";
  return { status: 200, body: `${targets.ringTimeoutSeconds};${targets.voicemail ? 1 : 0};${targets.extensions.join(",")};${mode}` };
}
