// Trade alerts (the notification centre's trade category): admins watch words or instruments
// (EURUSD, gold, AAPL); a customer's message that names one notifies every admin, through the
// host's notification model, with a link to the conversation's analyst view. The look runs in the
// background (start.server.ts), never on the request path; a match is written once per rule and
// message (trade_alert_hits' key) in the same transaction as its notifications, so two nodes or a
// re-run never alert twice.
import { and, asc, eq, gt, gte, isNull, lt, max, sql } from "drizzle-orm";
import { getDb, type DbHandle } from "@db/client";
import { addNotification, told } from "~/conversation/notifications.server";

export const MAX_RULES = 50;
export const KEYWORD_MAX = 40;
/** Letters, digits and the marks instruments are written with (EUR/USD, BRK.B, S&P 500). */
const KEYWORD = /^[\p{L}\p{N}][\p{L}\p{N} ./&-]*$/u;

export type RuleRefusal = "plugin_analyst.alerts.errors.keyword" | "plugin_analyst.alerts.errors.duplicate" | "plugin_analyst.alerts.errors.tooMany";

export async function alertRules(handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  return db.select().from(schema.tradeAlertRules).orderBy(asc(schema.tradeAlertRules.keyword));
}

/** Adds a watched keyword; answers the refusal's key when it is not one. */
export async function addAlertRule(keyword: string, userId: number, now = Date.now(), handle: DbHandle = getDb()): Promise<RuleRefusal | null> {
  const clean = keyword.trim().replace(/\s+/g, " ");
  if (!clean || clean.length > KEYWORD_MAX || !KEYWORD.test(clean)) return "plugin_analyst.alerts.errors.keyword";
  return handle.transaction(async (tx) => {
    const r = handle.schema.tradeAlertRules;
    const rules = await tx.select({ keyword: r.keyword }).from(r);
    if (rules.some((x) => x.keyword.toLowerCase() === clean.toLowerCase())) return "plugin_analyst.alerts.errors.duplicate";
    if (rules.length >= MAX_RULES) return "plugin_analyst.alerts.errors.tooMany";
    await tx.insert(r).values({ keyword: clean, createdBy: userId, createdAt: now });
    return null;
  });
}

export async function removeAlertRule(id: number, handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  await db.delete(schema.tradeAlertRules).where(eq(schema.tradeAlertRules.id, id));
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** The keyword as a whole word or phrase, any case. */
export const keywordPattern = (keyword: string) => new RegExp(`(?<![\\p{L}\\p{N}])${escape(keyword)}(?![\\p{L}\\p{N}])`, "iu");

const stripTags = (html: string) => html.replace(/<[^>]*>/g, " ");

/** Where the look starts after a (re)start: messages of the last day are looked at again (the hits' key drops repeats). */
export async function startMark(now = Date.now(), handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const [row] = await db
    .select({ id: max(schema.messages.id) })
    .from(schema.messages)
    .where(lt(schema.messages.createdAt, now - 86_400_000));
  return Number(row?.id ?? 0);
}

const BATCH = 500;

/**
 * Customers' messages after `after` (by id) matched against the active rules (a rule applies to
 * messages that came after it was made). Answers the new mark and how many alerts went out.
 */
export async function checkMessages(after: number, handle: DbHandle = getDb(), now = Date.now()): Promise<{ mark: number; alerts: number }> {
  const { db, schema } = handle;
  const m = schema.messages;
  const t = schema.tickets;
  const rules = (await alertRules(handle)).filter((r) => r.active).map((r) => ({ ...r, pattern: keywordPattern(r.keyword) }));
  const messages = await db
    .select({ id: m.id, ticketId: m.ticketId, type: m.type, body: m.body, createdAt: m.createdAt, kind: t.kind, ticketNumber: t.ticketNumber, title: t.title })
    .from(m)
    .innerJoin(t, eq(t.id, m.ticketId))
    .where(and(gt(m.id, after), isNull(m.senderUserId), sql`${t.channel} <> 'chat'`, sql`${m.type} in ('text', 'text/html')`))
    .orderBy(asc(m.id))
    .limit(BATCH);
  if (!messages.length) return { mark: after, alerts: 0 };
  const mark = messages[messages.length - 1].id;
  if (!rules.length) return { mark, alerts: 0 };
  let alerts = 0;
  const toldUsers = new Set<number>();
  for (const message of messages) {
    const text = message.type === "text/html" ? stripTags(message.body) : message.body;
    const matched = rules.filter((r) => message.createdAt >= r.createdAt && r.pattern.test(text.slice(0, 20_000)));
    if (!matched.length) continue;
    await handle.transaction(async (tx) => {
      const admins = await tx
        .select({ id: schema.users.id })
        .from(schema.users)
        .where(and(eq(schema.users.type, "admin"), isNull(schema.users.disabledAt)));
      for (const rule of matched) {
        const hit = await tx
          .insert(schema.tradeAlertHits)
          .values({ ruleId: rule.id, messageId: message.id, ticketId: message.ticketId, createdAt: now })
          .onConflictDoNothing()
          .returning({ ruleId: schema.tradeAlertHits.ruleId });
        if (!hit.length) continue;
        alerts++;
        for (const admin of admins) {
          await addNotification(
            tx,
            {
              userId: admin.id,
              type: "trade_alert",
              channel: message.kind,
              ticketNumber: message.ticketNumber,
              title: `${rule.keyword}: ${message.title}`.slice(0, 200),
              body: rule.keyword,
              category: "trade",
            },
            now,
          );
          toldUsers.add(admin.id);
        }
      }
    });
  }
  for (const userId of toldUsers) told(userId, "trade");
  return { mark, alerts };
}

/** Recent alerts of a rule set (the analyst page lists them). */
export async function recentHits(since: number, handle: DbHandle = getDb()) {
  const { db, schema } = handle;
  const h = schema.tradeAlertHits;
  const t = schema.tickets;
  return db
    .select({ keyword: schema.tradeAlertRules.keyword, ticketNumber: t.ticketNumber, kind: t.kind, title: t.title, at: h.createdAt })
    .from(h)
    .innerJoin(schema.tradeAlertRules, eq(schema.tradeAlertRules.id, h.ruleId))
    .innerJoin(t, eq(t.id, h.ticketId))
    .where(gte(h.createdAt, since))
    .orderBy(sql`${h.createdAt} desc`)
    .limit(20);
}
