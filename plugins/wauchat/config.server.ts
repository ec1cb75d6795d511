// What an admin sets on /settings/wauchat: the accounts the bot answers on, its texts (defaults in
// flow.ts), keyword rules and handover words. Each change is checked (translation keys as errors,
// what was typed kept) and written with its audit entry in one transaction.
import { and, asc, eq, notInArray } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { audit } from "~/accounts/audit.server";
import { formError, formResult, formValues, type FormResult } from "~/forms";
import { DEFAULT_HANDOVER_WORDS, DEFAULT_TEXTS, TEXT_KEYS, wordList, type BotConfig } from "./flow";

type By = { actor: { id: number; name: string }; ip?: string };
export type Saved = { ok: true } | { ok: false; result: FormResult; status: number };

const HANDOVER_WORDS_KEY = "handoverWords";
export const TEXT_MAX = 1000;
export const KEYWORDS_MAX = 500;
export const WORD_MAX = 60;

/** Kinds the bot cannot answer on: mail, and tickets typed in by hand. */
const NOT_MESSAGING = ["EMAIL", "GRAPH_EMAIL", "MANUAL"];

export async function loadConfig(): Promise<BotConfig> {
  const { db, schema } = getDb();
  const [settings, rules] = await Promise.all([
    db.select().from(schema.wauchatSettings),
    db.select().from(schema.wauchatRules).orderBy(asc(schema.wauchatRules.id)),
  ]);
  const stored = new Map(settings.map((s) => [s.key, s.value]));
  const texts = Object.fromEntries(TEXT_KEYS.map((k) => [k, stored.get(k) ?? DEFAULT_TEXTS[k]]));
  return { texts, rules, handoverWords: stored.get(HANDOVER_WORDS_KEY) ?? DEFAULT_HANDOVER_WORDS };
}

export async function botOnFor(accountId: number) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.wauchatAccounts).where(eq(schema.wauchatAccounts.accountId, accountId));
  return !!row;
}

/** The messaging accounts, each with whether the bot answers on it. */
export async function messagingAccounts() {
  const { db, schema } = getDb();
  const a = schema.channelAccounts;
  const w = schema.wauchatAccounts;
  const rows = await db
    .select({ id: a.id, name: a.name, kind: a.kind, address: a.address, enabled: a.enabled, bot: w.accountId })
    .from(a)
    .leftJoin(w, eq(w.accountId, a.id))
    .where(notInArray(a.kind, NOT_MESSAGING))
    .orderBy(asc(a.name), asc(a.id));
  return rows.map((r) => ({ ...r, bot: r.bot != null }));
}

/** Switches the bot on or off for one messaging account (conversations it holds keep their state). */
export async function setBotForAccount(accountId: number, on: boolean, by: By): Promise<Saved> {
  const account = (await messagingAccounts()).find((a) => a.id === accountId);
  if (!account) return { ok: false, result: formResult({ intent: "account", message: "plugin_wauchat.errors.account" }), status: 404 };
  const { db, schema } = getDb();
  await getDb().transaction(async (tx) => {
    if (on) await tx.insert(schema.wauchatAccounts).values({ accountId }).onConflictDoNothing();
    else await tx.delete(schema.wauchatAccounts).where(eq(schema.wauchatAccounts.accountId, accountId));
    await audit(
      {
        action: on ? "wauchat.account_on" : "wauchat.account_off",
        actor: by.actor,
        ip: by.ip,
        target: { type: "channel_account", id: accountId },
        detail: { name: account.name, kind: account.kind },
      },
      tx,
    );
  });
  return { ok: true };
}

const text = z
  .string()
  .trim()
  .min(1, "plugin_wauchat.errors.required")
  .max(TEXT_MAX, "plugin_wauchat.errors.tooLong")
  .transform((v) => v.replace(/\r\n/g, "\n"));

const words = (max: number) =>
  z
    .string()
    .trim()
    .max(KEYWORDS_MAX, "plugin_wauchat.errors.tooLong")
    .refine((v) => wordList(v).every((w) => w.length <= max), "plugin_wauchat.errors.wordTooLong");

const textsSchema = z.object(Object.fromEntries(TEXT_KEYS.map((k) => [`text.${k}`, text])));

/** The texts of the bot (every one required). */
export async function saveTexts(form: FormData, by: By): Promise<Saved> {
  const names = TEXT_KEYS.map((k) => `text.${k}`);
  const values = formValues(form, names);
  const parsed = textsSchema.safeParse(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values, "texts"), status: 400 };
  const data = parsed.data as Record<string, string>;
  const current = (await loadConfig()).texts;
  const changed = TEXT_KEYS.filter((k) => data[`text.${k}`] !== current[k]);
  const { db, schema } = getDb();
  const s = schema.wauchatSettings;
  await getDb().transaction(async (tx) => {
    for (const key of changed) {
      const value = data[`text.${key}`];
      await tx.insert(s).values({ key, value }).onConflictDoUpdate({ target: s.key, set: { value } });
    }
    await audit({ action: "wauchat.texts", actor: by.actor, ip: by.ip, target: { type: "wauchat", id: "texts" }, detail: { changed } }, tx);
  });
  return { ok: true };
}

const handoverSchema = z.object({ handoverWords: words(WORD_MAX) });

export async function saveHandoverWords(form: FormData, by: By): Promise<Saved> {
  const values = formValues(form, ["handoverWords"]);
  const parsed = handoverSchema.safeParse(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values, "handover"), status: 400 };
  const value = wordList(parsed.data.handoverWords).join(", ");
  const { db, schema } = getDb();
  const s = schema.wauchatSettings;
  await getDb().transaction(async (tx) => {
    await tx.insert(s).values({ key: HANDOVER_WORDS_KEY, value }).onConflictDoUpdate({ target: s.key, set: { value } });
    await audit({ action: "wauchat.handover_words", actor: by.actor, ip: by.ip, target: { type: "wauchat", id: "handover" }, detail: { words: value } }, tx);
  });
  return { ok: true };
}

const ruleSchema = z.object({
  keywords: words(WORD_MAX).refine((v) => wordList(v).length > 0, "plugin_wauchat.errors.keywordsRequired"),
  answer: text,
  handover: z.string().transform((v) => !!v),
});

/** Adds a rule (no id) or changes one; `intent` names the form on the page (add, or rule-{id}). */
export async function saveRule(form: FormData, by: By, id?: number): Promise<Saved> {
  const intent = id === undefined ? "rule_add" : `rule_${id}`;
  const values = formValues(form, ["keywords", "answer", "handover"]);
  const parsed = ruleSchema.safeParse(values);
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values, intent), status: 400 };
  const rule = { ...parsed.data, keywords: wordList(parsed.data.keywords).join(", ") };
  const { db, schema } = getDb();
  const r = schema.wauchatRules;
  const done = await getDb().transaction(async (tx) => {
    let ruleId = id;
    if (id === undefined)
      [{ id: ruleId }] = await tx
        .insert(r)
        .values({ ...rule, createdAt: Date.now() })
        .returning({ id: r.id });
    else if (!(await tx.update(r).set(rule).where(eq(r.id, id)).returning({ id: r.id })).length) return false;
    await audit(
      {
        action: id === undefined ? "wauchat.rule_create" : "wauchat.rule_update",
        actor: by.actor,
        ip: by.ip,
        target: { type: "wauchat_rule", id: ruleId! },
        detail: { keywords: rule.keywords, handover: rule.handover },
      },
      tx,
    );
    return true;
  });
  if (!done) return { ok: false, result: formResult({ intent, message: "plugin_wauchat.errors.ruleGone", values }), status: 404 };
  return { ok: true };
}

export async function deleteRule(id: number, by: By): Promise<Saved> {
  const { db, schema } = getDb();
  const r = schema.wauchatRules;
  const gone = await getDb().transaction(async (tx) => {
    const [row] = await tx
      .delete(r)
      .where(and(eq(r.id, id)))
      .returning();
    if (row)
      await audit({ action: "wauchat.rule_delete", actor: by.actor, ip: by.ip, target: { type: "wauchat_rule", id }, detail: { keywords: row.keywords } }, tx);
    return row;
  });
  if (!gone) return { ok: false, result: formResult({ intent: `rule_${id}`, message: "plugin_wauchat.errors.ruleGone" }), status: 404 };
  return { ok: true };
}
