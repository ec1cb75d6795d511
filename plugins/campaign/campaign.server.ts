// Campaigns as admins make them and everyone sees them: a draft (name, channel account, template,
// who it goes to, when, how fast) edited until it is started; starting writes one recipient row
// per contact with an identity of the channel's kind (all, or those a search finds) and queues the
// sending job (send.server.ts); pause and resume stop and restart that job. The list and a
// campaign's page count what became of its recipients.
import { audit } from "~/accounts/audit.server";
import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { getDb, type Tx } from "@db/client";
import { enabledAccounts, loadAccount } from "@plugins/channels/accounts.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { formError, formResult } from "~/forms";
import { enqueue, wakeJobs } from "~/jobs/queue.server";
import { rememberRequest, type FormOutcome } from "~/request-keys.server";
import { formatter } from "~/time";
import {
  FIELDS,
  LIST_PAGE,
  LIST_PAGE_MAX,
  NAME_MAX,
  PER_MINUTE_MAX,
  QUERY_MAX,
  RECIPIENT_PAGE,
  TEMPLATE_MAX,
  type CampaignFields,
  type CampaignState,
} from "./limits";

export const SEND_JOB = "campaign.send";

/**
 * The channels a campaign can start a conversation on, and the identity of a contact it writes to:
 * SMS to a phone, mail to an email address. WhatsApp is offered but refused: outside the customer's
 * 24-hour window it takes only an approved template, which campaigns do not send yet.
 */
export const IDENTITY_OF: Record<string, "phone" | "email"> = { SMS: "phone", EMAIL: "email", GRAPH_EMAIL: "email" };
const OFFERED = [...Object.keys(IDENTITY_OF), "WHATSAPP"];

export type Outcome<T extends object = object> = FormOutcome<T>;

/** The enabled accounts a campaign may be given. */
export async function campaignAccounts(): Promise<ChannelAccount[]> {
  return (await enabledAccounts()).filter((a) => OFFERED.includes(a.kind));
}

/** A datetime-local value (YYYY-MM-DDTHH:MM) in the workspace's zone as an instant; NaN when it is none. */
export function zonedTime(value: string, timeZone: string) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (!m) return NaN;
  const [y, mo, d, h, mi] = m.slice(1).map(Number);
  const utc = Date.UTC(y, mo - 1, d, h, mi);
  if (new Date(utc).getUTCDate() !== d || h > 23 || mi > 59) return NaN;
  const offset = (at: number) => {
    const p = Object.fromEntries(
      formatter(timeZone, "clock")
        .formatToParts(at)
        .map((x) => [x.type, x.value]),
    );
    return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour % 24, +p.minute, +p.second) - (at - (at % 1000));
  };
  // the offset at the first guess may differ (daylight saving changes that night): once more settles it
  return utc - offset(utc - offset(utc));
}

/** An instant as the form's datetime-local value in the workspace's zone. */
export function localInput(at: number | null, timeZone: string) {
  if (at == null) return "";
  const p = Object.fromEntries(
    formatter(timeZone, "clock")
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day}T${String(+p.hour % 24).padStart(2, "0")}:${p.minute}`;
}

function campaignSchema(accounts: ChannelAccount[], timeZone: string) {
  return z
    .object({
      name: z.string().trim().min(1, "plugin_campaign.errors.nameRequired").max(NAME_MAX, "plugin_campaign.errors.nameTooLong"),
      account: z
        .string()
        .trim()
        .superRefine((v, ctx) => {
          const account = accounts.find((a) => String(a.id) === v);
          if (!account) ctx.addIssue({ code: "custom", message: "plugin_campaign.errors.account" });
          else if (!IDENTITY_OF[account.kind]) ctx.addIssue({ code: "custom", message: "plugin_campaign.errors.whatsappTemplate" });
        })
        .transform(Number),
      template: z.string().trim().min(1, "plugin_campaign.errors.templateRequired").max(TEMPLATE_MAX, "plugin_campaign.errors.templateTooLong"),
      perMinute: z
        .string()
        .trim()
        .regex(/^\d{1,4}$/, "plugin_campaign.errors.perMinute")
        .transform(Number)
        .refine((n) => n >= 1 && n <= PER_MINUTE_MAX, "plugin_campaign.errors.perMinute"),
      startsAt: z
        .string()
        .trim()
        .refine((v) => v === "" || Number.isFinite(zonedTime(v, timeZone)), "plugin_campaign.errors.startsAt")
        .transform((v) => (v ? zonedTime(v, timeZone) : null)),
      audience: z.enum(["all", "search"], { message: "plugin_campaign.errors.audience" }),
      query: z.string().trim().max(QUERY_MAX, "plugin_campaign.errors.queryTooLong"),
    })
    .superRefine((v, ctx) => {
      if (v.audience === "search" && !v.query) ctx.addIssue({ code: "custom", path: ["query"], message: "plugin_campaign.errors.queryRequired" });
    });
}

type Actor = { id: number; username: string };
const auditActor = (a: Actor) => ({ id: a.id, name: a.username });

/** Creates a draft, or changes one (id given); a campaign that has started is no longer edited. */
export async function saveCampaign(actor: Actor, values: CampaignFields, timeZone: string, id?: number, now = Date.now()): Promise<Outcome<{ id: number }>> {
  const accounts = await campaignAccounts();
  const parsed = campaignSchema(accounts, timeZone).safeParse(values);
  if (!parsed.success) {
    const result = formError(parsed.error, values);
    if (!accounts.length) result.message = "plugin_campaign.errors.noAccounts";
    return { ok: false, result, status: 400 };
  }
  const { schema } = getDb();
  const c = schema.campaigns;
  const fields = {
    name: parsed.data.name,
    channelAccountId: parsed.data.account,
    template: parsed.data.template,
    perMinute: parsed.data.perMinute,
    startsAt: parsed.data.startsAt,
    audience: parsed.data.audience,
    query: parsed.data.audience === "search" ? parsed.data.query : "",
    updatedAt: now,
  };
  return getDb().transaction(async (tx) => {
    if (id === undefined) {
      const [row] = await tx
        .insert(c)
        .values({ ...fields, createdBy: actor.id, createdAt: now })
        .returning({ id: c.id });
      await audit({ action: "campaign.created", actor: auditActor(actor), target: { type: "campaign", id: row.id }, detail: { name: fields.name } }, tx);
      await rememberRequest(tx, { id: row.id });
      return { ok: true as const, id: row.id };
    }
    const [row] = await tx
      .update(c)
      .set(fields)
      .where(and(eq(c.id, id), eq(c.state, "draft")))
      .returning({ id: c.id });
    if (!row) return { ok: false as const, result: formResult({ message: "plugin_campaign.errors.notDraft", values }), status: 409 };
    await audit({ action: "campaign.updated", actor: auditActor(actor), target: { type: "campaign", id }, detail: { name: fields.name } }, tx);
    await rememberRequest(tx, { id });
    return { ok: true as const, id };
  });
}

/** Runs a statement the query builder does not cover, inside a transaction, on either dialect. */
async function execute(tx: Tx, query: ReturnType<typeof sql>) {
  if (getDb().dialect === "sqlite") tx.run(query);
  else await (tx as unknown as { execute(q: typeof query): Promise<unknown> }).execute(query);
}

/** LIKE's pattern for "contains", % _ and \ matched as typed. */
const containsPattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** Writes the recipients of a campaign: each contact with an identity of `kind` (its first one), of the search when given. */
async function writeRecipients(tx: Tx, campaignId: number, kind: string, query: string) {
  const like = containsPattern(query);
  const search = query
    ? sql` and (lower(c.name) like ${like} escape '\\' or exists (select 1 from contact_identities x where x.contact_id = ci.contact_id and x.value like ${like} escape '\\'))`
    : sql``;
  await execute(
    tx,
    sql`insert into campaign_recipients (campaign_id, contact_id, address, state)
        select cast(${campaignId} as integer), ci.contact_id, min(ci.value), 'pending'
        from contact_identities ci join contacts c on c.id = ci.contact_id
        where ci.kind = ${kind}${search}
        group by ci.contact_id
        on conflict do nothing`,
  );
}

const jobKey = (id: number, at: number) => `${SEND_JOB}:${id}:${at}`;

/** Starts a draft: its recipients are written and the sending job queued (for its start time, if later). */
export async function startCampaign(id: number, by: Actor, now = Date.now()): Promise<Outcome<{ id: number; recipients: number }>> {
  const campaign = await campaignRow(id);
  const refuse = (message: string, status = 409, errors: Record<string, string> = {}) => ({
    ok: false as const,
    result: formResult({ intent: "start", message, errors }),
    status,
  });
  if (!campaign || campaign.state !== "draft") return refuse("plugin_campaign.errors.notDraft");
  const account = await loadAccount(campaign.channelAccountId);
  if (!account?.enabled) return refuse("plugin_campaign.errors.noAccount", 409, { account: "plugin_campaign.errors.account" });
  const kind = IDENTITY_OF[account.kind];
  if (!kind) return refuse("plugin_campaign.errors.whatsappTemplate", 409, { account: "plugin_campaign.errors.whatsappTemplate" });
  if (!campaign.template.trim()) return refuse("plugin_campaign.errors.templateRequired", 409, { template: "plugin_campaign.errors.templateRequired" });
  const { schema } = getDb();
  const r = schema.campaignRecipients;
  const c = schema.campaigns;
  const started = await getDb().transaction(async (tx) => {
    // a draft has sent nobody: what an earlier start left behind (before an edit) is written afresh
    await tx.delete(r).where(eq(r.campaignId, id));
    await writeRecipients(tx, id, kind, campaign.audience === "search" ? campaign.query : "");
    const [{ n }] = await tx.select({ n: count() }).from(r).where(eq(r.campaignId, id));
    if (!Number(n)) return null;
    const later = campaign.startsAt != null && campaign.startsAt > now;
    const [row] = await tx
      .update(c)
      .set({ state: later ? "scheduled" : "sending", updatedAt: now })
      .where(and(eq(c.id, id), eq(c.state, "draft")))
      .returning({ id: c.id });
    if (!row) return null;
    await enqueue(tx, { kind: SEND_JOB, key: jobKey(id, now), payload: { campaignId: id }, runAt: later ? campaign.startsAt! : now });
    await audit(
      { action: "campaign.started", actor: auditActor(by), target: { type: "campaign", id }, detail: { name: campaign.name, recipients: Number(n) } },
      tx,
    );
    await rememberRequest(tx, { id, recipients: Number(n) });
    return Number(n);
  });
  if (started == null) return refuse("plugin_campaign.errors.noRecipients");
  wakeJobs();
  return { ok: true, id, recipients: started };
}

/** Pauses a scheduled or sending campaign (the job stops before its next recipient), or resumes a paused one. */
export async function setPaused(id: number, paused: boolean, by: Actor, now = Date.now()): Promise<Outcome<{ id: number }>> {
  const { schema } = getDb();
  const c = schema.campaigns;
  const campaign = await campaignRow(id);
  const done = await getDb().transaction(async (tx) => {
    if (!campaign) return false;
    const later = campaign.startsAt != null && campaign.startsAt > now;
    const [row] = await tx
      .update(c)
      .set({ state: paused ? "paused" : later ? "scheduled" : "sending", updatedAt: now })
      .where(and(eq(c.id, id), inArray(c.state, paused ? ["scheduled", "sending"] : ["paused"])))
      .returning({ id: c.id });
    if (!row) return false;
    if (!paused) await enqueue(tx, { kind: SEND_JOB, key: jobKey(id, now), payload: { campaignId: id }, runAt: later ? campaign.startsAt! : now });
    await audit(
      { action: paused ? "campaign.paused" : "campaign.resumed", actor: auditActor(by), target: { type: "campaign", id }, detail: { name: campaign.name } },
      tx,
    );
    await rememberRequest(tx, { id });
    return true;
  });
  if (!done) return { ok: false, result: formResult({ intent: paused ? "pause" : "resume", message: "plugin_campaign.errors.stateChanged" }), status: 409 };
  if (!paused) wakeJobs();
  return { ok: true, id };
}

export async function campaignRow(id: number) {
  if (!Number.isSafeInteger(id)) return undefined;
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.campaigns).where(eq(schema.campaigns.id, id));
  return row;
}

export interface Counts {
  total: number;
  pending: number;
  sent: number;
  failed: number;
  optedOut: number;
  skipped: number;
}
const noCounts = (): Counts => ({ total: 0, pending: 0, sent: 0, failed: 0, optedOut: 0, skipped: 0 });

/** What became of each campaign's recipients: a message the provider refused counts as failed. */
async function countsOf(ids: number[]) {
  const out = new Map<number, Counts>(ids.map((id) => [id, noCounts()]));
  if (!ids.length) return out;
  const { db, schema } = getDb();
  const r = schema.campaignRecipients;
  const m = schema.messages;
  const rows = await db
    .select({ campaignId: r.campaignId, state: r.state, delivery: m.deliveryState, n: count() })
    .from(r)
    .leftJoin(m, eq(m.id, r.messageId))
    .where(inArray(r.campaignId, ids))
    .groupBy(r.campaignId, r.state, m.deliveryState);
  for (const row of rows) {
    const c = out.get(row.campaignId)!;
    const n = Number(row.n);
    c.total += n;
    if (row.state === "sent") c[row.delivery === "failed" ? "failed" : "sent"] += n;
    else if (row.state === "opted_out") c.optedOut += n;
    else if (row.state === "failed") c.failed += n;
    else if (row.state === "skipped") c.skipped += n;
    else c.pending += n;
  }
  return out;
}

export type CampaignSummary = {
  id: number;
  name: string;
  state: CampaignState;
  accountName: string;
  kind: string;
  startsAt: number | null;
  createdAt: number;
  counts: Counts;
};

/** A page of campaigns, newest first, with their counts and the total. */
export async function listCampaigns(input: { page?: number; size?: number } = {}) {
  const { db, schema } = getDb();
  const c = schema.campaigns;
  const a = schema.channelAccounts;
  const size = Math.min(Math.max(1, Math.floor(input.size ?? LIST_PAGE)), LIST_PAGE_MAX);
  const page = Math.max(1, Math.floor(input.page ?? 1));
  const [rows, [{ total }]] = await Promise.all([
    db
      .select({ id: c.id, name: c.name, state: c.state, accountName: a.name, kind: a.kind, startsAt: c.startsAt, createdAt: c.createdAt })
      .from(c)
      .leftJoin(a, eq(a.id, c.channelAccountId))
      .orderBy(desc(c.createdAt), desc(c.id))
      .limit(size)
      .offset((page - 1) * size),
    db.select({ total: count() }).from(c),
  ]);
  const counts = await countsOf(rows.map((r) => r.id));
  const campaigns: CampaignSummary[] = rows.map((r) => ({
    ...r,
    state: r.state as CampaignState,
    accountName: r.accountName ?? "",
    kind: r.kind ?? "",
    startsAt: r.startsAt == null ? null : Number(r.startsAt),
    createdAt: Number(r.createdAt),
    counts: counts.get(r.id)!,
  }));
  return { campaigns, total: Number(total), page, size };
}

/** One campaign with its account and counts; undefined when there is none. */
export async function campaignDetail(id: number) {
  const row = await campaignRow(id);
  if (!row) return undefined;
  const account = await loadAccount(row.channelAccountId);
  const counts = (await countsOf([id])).get(id)!;
  return {
    ...row,
    state: row.state as CampaignState,
    startsAt: row.startsAt == null ? null : Number(row.startsAt),
    createdAt: Number(row.createdAt),
    account: account ? { id: account.id, name: account.name, address: account.address, kind: account.kind, enabled: account.enabled } : null,
    counts,
  };
}

/** A page of a campaign's recipients, in the order they are sent, with what became of each message. */
export async function recipientsOf(campaignId: number, page = 1, size = RECIPIENT_PAGE) {
  const { db, schema } = getDb();
  const r = schema.campaignRecipients;
  const ct = schema.contacts;
  const t = schema.tickets;
  const m = schema.messages;
  const current = Math.max(1, Math.floor(page));
  const rows = await db
    .select({
      id: r.id,
      name: ct.name,
      uid: ct.uid,
      address: r.address,
      state: r.state,
      error: r.error,
      sentAt: r.sentAt,
      ticketNumber: t.ticketNumber,
      delivery: m.deliveryState,
      deliveryError: m.deliveryError,
    })
    .from(r)
    .leftJoin(ct, eq(ct.id, r.contactId))
    .leftJoin(t, eq(t.id, r.ticketId))
    .leftJoin(m, eq(m.id, r.messageId))
    .where(eq(r.campaignId, campaignId))
    .orderBy(asc(r.id))
    .limit(size + 1)
    .offset((current - 1) * size);
  return {
    items: rows.slice(0, size).map((row) => ({ ...row, sentAt: row.sentAt == null ? null : Number(row.sentAt), name: row.name ?? "", uid: row.uid ?? "" })),
    page: current,
    more: rows.length > size,
  };
}

/** The form's values of a saved campaign (to edit it). */
export function fieldsOf(row: NonNullable<Awaited<ReturnType<typeof campaignRow>>>, timeZone: string): CampaignFields {
  return {
    name: row.name,
    account: row.channelAccountId == null ? "" : String(row.channelAccountId),
    template: row.template,
    perMinute: String(row.perMinute),
    startsAt: localInput(row.startsAt == null ? null : Number(row.startsAt), timeZone),
    audience: row.audience,
    query: row.query,
  };
}

export const emptyFields = (): CampaignFields => Object.fromEntries(FIELDS.map((f) => [f, ""])) as CampaignFields;
