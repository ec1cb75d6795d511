// WhatsApp message templates: outside the 24-hour window WhatsApp delivers only a template the
// business had approved (Meta's "message_templates" of the WhatsApp Business Account). The agent
// picks one on /whatsapp/template/{ticket}, fills its body's values, and the reply is written
// with the template kept beside it (whatsapp_template_messages) in the reply's transaction, so
// the send job sends the template, never the bare text.
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { loadAccount } from "@plugins/channels/accounts.server";
import { graphCall } from "@plugins/meta/graph.server";
import type { Reader } from "~/conversation/access.server";
import { findConversation, reply } from "~/conversation/model.server";
import { PLACEHOLDER, renderTemplate, templateId, valueField, type Template } from "./templates";

type Actor = Parameters<typeof reply>[0];

type GraphTemplate = {
  name: string;
  language: string;
  status: string;
  category?: string;
  components?: { type: string; format?: string; text?: string; example?: unknown }[];
};
type GraphPage = { data?: GraphTemplate[]; paging?: { next?: string; cursors?: { after?: string } } };

/** Pages of templates read at most (100 each): a business rarely has more than a few dozen. */
const MAX_PAGES = 5;
const CACHE_MS = 5 * 60_000;
const cache = new Map<number, { at: number; templates: Template[] }>();

const placeholders = (text: string) => Math.max(0, ...[...text.matchAll(PLACEHOLDER)].map((m) => Number(m[1])));

/** Template buttons WhatsApp sends without a parameter from us (OTP, COPY_CODE, CATALOG, MPM, FLOW need one). */
const SENDABLE_BUTTONS = new Set(["QUICK_REPLY", "URL", "PHONE_NUMBER"]);

/**
 * A template an agent can send from here: approved, a body with numbered values only, and no
 * header or button that needs a value or a file (those are refused by WhatsApp without them).
 */
function usable(t: GraphTemplate): Template | null {
  if (t.status !== "APPROVED") return null;
  const parts = t.components ?? [];
  const body = parts.find((c) => c.type === "BODY")?.text;
  if (!body) return null;
  const header = parts.find((c) => c.type === "HEADER");
  if (header && (header.format !== "TEXT" || placeholders(header.text ?? "") > 0)) return null;
  if (/\{\{\s*[^\d\s}]/.test(body)) return null; // named values: not offered
  const buttons = parts.find((c) => c.type === "BUTTONS") as { buttons?: { type: string; url?: string }[] } | undefined;
  // only buttons that need nothing at send time: a one-time code, coupon, catalog, flow or a URL with a value need a parameter here
  if (buttons?.buttons?.some((b) => !SENDABLE_BUTTONS.has(b.type) || (b.type === "URL" && /\{\{/.test(b.url ?? "")))) return null;
  return {
    name: t.name,
    language: t.language,
    category: t.category ?? "",
    header: header?.text ?? "",
    body,
    footer: parts.find((c) => c.type === "FOOTER")?.text ?? "",
    params: placeholders(body),
  };
}

/** The account's approved templates an agent can send (kept five minutes). Throws Graph's error. */
export async function listTemplates(account: ChannelAccount, now = Date.now()): Promise<Template[]> {
  const waba = account.config.businessAccountId?.trim();
  if (!waba) return [];
  const hit = cache.get(account.id);
  if (hit && now - hit.at < CACHE_MS) return hit.templates;
  const found: Template[] = [];
  let after = "";
  for (let page = 0; page < MAX_PAGES; page++) {
    const query = new URLSearchParams({ fields: "name,language,status,category,components", status: "APPROVED", limit: "100" });
    if (after) query.set("after", after);
    const answer = await graphCall<GraphPage>(account, `${encodeURIComponent(waba)}/message_templates?${query}`);
    for (const t of answer.data ?? []) {
      const ok = usable(t);
      if (ok) found.push(ok);
    }
    after = answer.paging?.next ? (answer.paging.cursors?.after ?? "") : "";
    if (!after) break;
  }
  found.sort((a, b) => a.name.localeCompare(b.name) || a.language.localeCompare(b.language));
  cache.set(account.id, { at: now, templates: found });
  return found;
}

/** The template a reply's message is to be sent as, if it is one. */
export async function templateOfMessage(messageId: number) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.whatsappTemplateMessages).where(eq(schema.whatsappTemplateMessages.messageId, messageId));
  return row ? { name: row.name, language: row.language, params: JSON.parse(row.params) as string[] } : null;
}

/** Forgets the cached templates (tests, and an admin's change of the account). */
export function forgetTemplates(accountId?: number) {
  if (accountId === undefined) cache.clear();
  else cache.delete(accountId);
}

/** A value WhatsApp takes in a template's body: one line, no tabs, at most four spaces in a row (Graph error 132018). */
const VALUE_MAX = 1024;
const valueProblem = (value: string) => {
  if (!value.trim()) return "plugin_whatsapp.template.valueRequired";
  if (value.length > VALUE_MAX) return "plugin_whatsapp.template.valueLong";
  if (/[\r\n\t]| {5}/.test(value)) return "plugin_whatsapp.template.valueBad";
  return null;
};

/** The conversation an agent sends a template in (their access checked), its account and its templates. */
export async function templateConversation(reader: Reader, ticketNumber: number) {
  const templates: Template[] = [];
  const ticket = await findConversation(reader, ticketNumber, "ticket");
  if (ticket.channel !== "WHATSAPP" || ticket.channelAccountId == null)
    return { ticket, account: null, templates, error: "plugin_whatsapp.template.notWhatsapp" };
  const account = await loadAccount(ticket.channelAccountId);
  if (!account) return { ticket, account: null, templates, error: "plugin_whatsapp.template.notWhatsapp" };
  if (!account.config.businessAccountId?.trim()) return { ticket, account, templates, error: "plugin_whatsapp.template.noBusinessAccount" };
  try {
    return { ticket, account, templates: await listTemplates(account), error: null };
  } catch (error) {
    return { ticket, account, templates, error: "plugin_whatsapp.template.loadFailed", detail: (error as Error).message };
  }
}

export type TemplateSend =
  { ok: true; messageIds: number[] } | { ok: false; errors: Record<string, string>; message?: string; messageValues?: Record<string, string> };

/**
 * Writes the agent's template as a reply (its text as the customer will read it) with the template
 * beside it, in one transaction; the send job then sends the template.
 */
export async function sendTemplate(actor: Actor, ticketNumber: number, fields: Record<string, string>): Promise<TemplateSend> {
  const found = await templateConversation(actor, ticketNumber);
  if (found.error) return { ok: false, errors: {}, message: found.error, messageValues: { error: found.detail ?? "" } };
  const template = found.templates.find((t) => templateId(t) === fields.template);
  if (!template) return { ok: false, errors: { template: "plugin_whatsapp.template.choose" } };
  const values: string[] = [];
  const errors: Record<string, string> = {};
  for (let n = 1; n <= template.params; n++) {
    const value = fields[valueField(n)] ?? "";
    const problem = valueProblem(value);
    if (problem) errors[valueField(n)] = problem;
    values.push(value.trim());
  }
  if (Object.keys(errors).length) return { ok: false, errors };
  const { schema } = getDb();
  const created = await reply(actor, found.ticket, {
    body: renderTemplate(template, values),
    files: [],
    attach: async (tx, [message]) => {
      await tx
        .insert(schema.whatsappTemplateMessages)
        .values({ messageId: message.id, name: template.name, language: template.language, params: JSON.stringify(values) });
    },
  });
  return { ok: true, messageIds: created.map((m) => m.id) };
}
