// Scam and risk hints of a message with the workspace's history (scam.ts has the ones a message
// gives by itself): a link's domain no earlier message of the workspace had (first seen now), a
// phone number or bank account that customers of several unrelated conversations sent (the
// numbers are kept in ai_numbers by the analysis job), and a mail whose SPF, DKIM or DMARC check
// failed (the email channel's verdict). Shown on the conversation's Risk panel and answered by
// /api/wauchat/recommendation?type=scam.
import { and, countDistinct, desc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import { parse } from "tldts";
import { getDb, type DbHandle } from "@db/client";
import { plainText } from "./analysis.server";
import { linksOf, messageHints, numbersOf, type Hint } from "./scam";

/** Unrelated contacts sending the same number before it is a hint. */
export const SHARED_CONTACTS = 3;

/** How many unrelated contacts (by the conversation's contact address, phone or name) sent `value`. */
export async function contactsSending(value: string, handle: DbHandle = getDb()): Promise<number> {
  const { db, schema } = handle;
  const t = schema.tickets;
  const n = schema.aiNumbers;
  const who = sql`COALESCE(NULLIF(${t.contactEmail}, ''), NULLIF(${t.contactPhone}, ''), NULLIF(${t.contactName}, ''), CAST(${t.id} AS TEXT))`;
  const [row] = await db
    .select({ count: countDistinct(who) })
    .from(n)
    .innerJoin(t, eq(t.id, n.ticketId))
    .where(eq(n.value, value));
  return Number(row?.count ?? 0);
}

/** Whether any message of the workspace before `beforeId` named `domain`. */
async function seenBefore(domain: string, beforeId: number, handle: DbHandle) {
  const { db, schema } = handle;
  const m = schema.messages;
  const like = `%${domain.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const [row] = await db
    .select({ id: m.id })
    .from(m)
    .where(and(lt(m.id, beforeId), sql`${m.body} LIKE ${like} ESCAPE '\\'`))
    .limit(1);
  return !!row;
}

type MessageRow = { id: number; ticketId: number; type: string; body: string };

async function messageRow(ticketId: number, messageId: number | undefined, handle: DbHandle): Promise<MessageRow | null> {
  const { db, schema } = handle;
  const m = schema.messages;
  const [row] = await db
    .select({ id: m.id, ticketId: m.ticketId, type: m.type, body: m.body })
    .from(m)
    .where(and(eq(m.ticketId, ticketId), isNull(m.senderUserId), inArray(m.type, ["text", "text/html"]), messageId ? eq(m.id, messageId) : undefined))
    .orderBy(desc(m.id))
    .limit(1);
  return row ?? null;
}

/** Every hint of one customer message (the one named, else the conversation's latest; or a text given as is). */
export async function scamHintsForMessage(input: { ticketId: number; messageId?: number; text?: string }, handle: DbHandle = getDb()): Promise<Hint[]> {
  const row: MessageRow | null = input.text?.trim()
    ? { id: Number.MAX_SAFE_INTEGER, ticketId: input.ticketId, type: "text", body: input.text }
    : await messageRow(input.ticketId, input.messageId, handle);
  if (!row) return [];
  const text = plainText(row);
  const hints = messageHints(text, row.type === "text/html" ? row.body : undefined);
  const flagged = new Set(hints.map((h) => h.evidence));

  // domains first seen now (a weak hint alone: every domain is new once)
  const domains = new Set<string>();
  for (const link of linksOf(text, row.type === "text/html" ? row.body : undefined)) {
    const info = parse(/^[a-z]+:\/\//i.test(link.url) ? link.url : `http://${link.url}`);
    if (info.domain && !info.isIp) domains.add(info.domain);
  }
  for (const domain of [...domains].slice(0, 10))
    if (!(await seenBefore(domain, row.id, handle)) && ![...flagged].some((e) => e.endsWith(domain)))
      hints.push({ kind: "new_domain", values: { domain }, evidence: domain, confidence: 0.3 });

  for (const n of numbersOf(text)) {
    const contacts = await contactsSending(n.value, handle);
    if (contacts >= SHARED_CONTACTS)
      hints.push({
        kind: "shared_number",
        values: { number: n.value, contacts: String(contacts), kind: `t:plugin_ai.scam.numberKind.${n.kind}` },
        evidence: n.value,
        confidence: Math.min(0.95, 0.4 + 0.1 * contacts),
      });
  }

  if (row.id !== Number.MAX_SAFE_INTEGER) {
    const { db, schema } = handle;
    const [mail] = await db.select({ auth: schema.emailMessages.auth }).from(schema.emailMessages).where(eq(schema.emailMessages.messageId, row.id));
    if (mail?.auth) {
      let verdict: Record<string, unknown> = {};
      try {
        verdict = JSON.parse(mail.auth);
      } catch {
        verdict = {};
      }
      const failed = (["spf", "dkim", "dmarc"] as const).filter((k) => verdict[k] === "fail");
      if (failed.length)
        hints.push({
          kind: "auth_failed",
          values: { checks: failed.map((f) => f.toUpperCase()).join(", ") },
          evidence: failed.join(","),
          confidence: failed.includes("dmarc") ? 0.8 : 0.6,
        });
    }
  }
  return hints.sort((a, b) => b.confidence - a.confidence);
}
