// /call_verification ('scam call', spec sections 2 and 6): the calls whose transcript or caller the
// AI plugin flagged with scam and risk hints. The AI plugin's durable job (plugins/ai/call-scam.server.ts,
// queued by the `callRecorded` hook when a call's recording and transcript are ready) stores each
// call's hints in ai_call_hints; this page reads them through the shared schema, as the /call list
// reads the AI's roll-up (plugins never import each other), so a page load computes nothing.
// The page is the calls plugin's because its menu item, rule and route are, and because what it
// lists are calls (caller, DID, agent); with the AI plugin off, nothing is flagged and it says so.
import { and, desc, eq, exists, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { startOfDay } from "~/time";
import { CALL_PAGE_SIZE, parseFilterFields } from "./calls.server";

/** The hint kinds a call can carry (plugin_ai.scam.<kind>; a mail's failed sender checks never come from a call). */
export const CALL_HINT_KINDS = ["pressure", "payment", "shared_number", "lookalike", "mismatch", "ip_link", "new_domain"] as const;
export type CallHintKind = (typeof CALL_HINT_KINDS)[number];

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const fields = {
  from: day,
  to: day,
  kind: z.enum(CALL_HINT_KINDS),
  page: z.coerce.number().int().min(1).max(100000),
};
type Field = keyof typeof fields;
export type VerificationFilter = { [K in Field]?: z.infer<(typeof fields)[K]> };

/** The filter from the GET form: each field on its own, so one bad value keeps the others (the page says which). */
export function parseVerificationFilter(raw: Record<string, string | undefined>) {
  return parseFilterFields<VerificationFilter, typeof fields>(raw, fields);
}

/** The flagged calls, newest first, 30 a page, each with its hints (most sure first). */
export async function listFlaggedCalls(filter: VerificationFilter, timeZone: string) {
  const { db, schema } = getDb();
  const c = schema.calls;
  const t = schema.tickets;
  const h = schema.aiCallHints;
  const dayStart = (ymd: string) => startOfDay(Date.parse(`${ymd}T12:00:00Z`), timeZone);
  const where: (SQL | undefined)[] = [
    exists(
      db
        .select({ one: sql`1` })
        .from(h)
        .where(and(eq(h.callId, c.id), filter.kind ? eq(h.kind, filter.kind) : undefined)),
    ),
  ];
  if (filter.from) where.push(gte(c.startedAt, dayStart(filter.from)));
  if (filter.to) where.push(lt(c.startedAt, dayStart(filter.to) + 86_400_000));
  const cond = and(...where);
  const page = filter.page ?? 1;
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({
        callId: c.id,
        ticketNumber: t.ticketNumber,
        from: c.fromNumber,
        to: c.toNumber,
        did: c.did,
        startedAt: c.startedAt,
        agent: schema.users.name,
      })
      .from(c)
      .innerJoin(t, eq(t.id, c.ticketId))
      .leftJoin(schema.users, eq(schema.users.id, c.agentUserId))
      .where(cond)
      .orderBy(desc(c.startedAt), desc(c.id))
      .limit(CALL_PAGE_SIZE)
      .offset((page - 1) * CALL_PAGE_SIZE),
    db
      .select({ total: sql<number>`count(*)` })
      .from(c)
      .innerJoin(t, eq(t.id, c.ticketId))
      .where(cond),
  ]);
  const hints = rows.length
    ? await db
        .select({ callId: h.callId, kind: h.kind, values: h.hintValues, confidence: h.confidence })
        .from(h)
        .where(
          inArray(
            h.callId,
            rows.map((r) => r.callId),
          ),
        )
        .orderBy(desc(h.confidence), h.kind)
    : [];
  const parse = (text: string): Record<string, string> => {
    try {
      const v = JSON.parse(text) as unknown;
      return v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)])) : {};
    } catch {
      return {};
    }
  };
  return {
    page,
    pages: Math.max(1, Math.ceil(Number(total) / CALL_PAGE_SIZE)),
    total: Number(total),
    calls: rows.map((r) => ({
      ticketNumber: r.ticketNumber,
      from: r.from,
      to: r.to,
      did: r.did,
      startedAt: Number(r.startedAt),
      agent: r.agent ?? "",
      hints: hints
        .filter((x) => x.callId === r.callId)
        .map((x) => ({ kind: x.kind, confidence: x.confidence, values: { ...parse(x.values), confidence: String(x.confidence) } as Record<string, string> })),
    })),
  };
}
