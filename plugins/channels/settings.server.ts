// The admin's channel settings (/settings/channels): the accounts of every connectable kind, their
// forms built from each adapter's `fields`, the Test button, enable/disable/delete, and what an
// admin must know about mail that cannot leave. Generic over kinds: nothing here knows email
// beyond "an email kind's address is an email address". Secrets never leave this file's answers.
import { and, count, desc, eq, inArray, ne } from "drizzle-orm";
import { z } from "zod";
import { getDb, isUniqueViolation } from "@db/client";
import { webhookPath } from "./webhook.server";
import { log } from "~/ops/log.server";
import { audit } from "~/accounts/audit.server";
import { listDepartmentChoices } from "~/conversation/choices.server";
import { getSetting } from "~/models/settings.server";
import { PLAN } from "~/permissions";
import { EMAIL_PATTERN, formError, formResult, formValues, type FormResult } from "~/forms";
import type { Channel } from "~/conversation/channels";
import type { AccountField, ChannelAdapter } from "./adapter";
import { adapterFor, connectableKinds } from "./adapters.server";
import { accountRow, accountSummary, listAccounts, loadAccount, saveAccount, setAccountState } from "./accounts.server";

type Actor = { id: number; name: string };
type By = { actor: Actor; ip?: string };

// ---------- the hook watchers subscribe to ----------

export type AccountsListener = (accountId: number) => void | Promise<void>;
// on globalThis: server.ts and the Remix build are two bundles, and the watchers may start from either
const g = globalThis as unknown as { __omnideskChannelListeners?: Set<AccountsListener> };
const listeners = (g.__omnideskChannelListeners ??= new Set());

/** Called after an account is saved, enabled, disabled or deleted (watchers restart theirs). Answers an unsubscribe. */
export function onAccountsChanged(listener: AccountsListener) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Tells the listeners; a failing listener never fails the admin's change (it is saved already). */
export function accountsChanged(accountId: number) {
  for (const listener of listeners) {
    try {
      Promise.resolve(listener(accountId)).catch((error) => log.error({ err: error, accountId }, "channel accounts listener failed"));
    } catch (error) {
      log.error({ err: error, accountId }, "channel accounts listener failed");
    }
  }
}

// ---------- kinds and their forms ----------

/** Kinds whose address is a mailbox: checked as an email address. */
const EMAIL_KINDS = new Set<string>(["EMAIL", "GRAPH_EMAIL"]);

export interface KindForm {
  kind: Channel;
  fields: AccountField[];
}

/** Every kind an admin can add, with its adapter's fields (a kind whose adapter fails to load is left out). */
export async function kindForms(): Promise<KindForm[]> {
  const found = await Promise.all(
    connectableKinds().map(async (kind) => {
      const adapter = await adapterFor(kind).catch(() => undefined);
      return adapter ? { kind, fields: adapter.fields } : null;
    }),
  );
  return found.filter((k): k is KindForm => !!k);
}

/** The form's input name of an adapter field: prefixed, so no adapter field can shadow name/address/intent. */
export const fieldInput = (name: string) => `config.${name}`;

/** A field the form did not send (an unticked checkbox, a field the adapter added since) reads as empty. */
const orEmpty = (v: unknown) => v ?? "";

const NUMBER = /^-?\d+(\.\d+)?$/;

/** What was typed, as a page may show it again: never a secret field. */
function keptValues(form: FormData, fields: AccountField[]) {
  const secret = new Set(fields.filter((f) => f.secret).map((f) => fieldInput(f.name)));
  const names = ["kind", "name", "address", "department", ...fields.map((f) => fieldInput(f.name))].filter((n) => !secret.has(n));
  return formValues(form, names);
}

/**
 * The schema of one kind's form: name and address of every account, then the adapter's fields.
 * `secretsSet` are the secret fields already stored (an edit may leave them empty).
 */
export function accountSchema(kind: Channel, adapter: Pick<ChannelAdapter, "fields" | "validate">, departments: number[], secretsSet: string[] = []) {
  const shape: Record<string, z.ZodTypeAny> = {
    name: z.string().trim().min(1, "plugin_channels.errors.nameRequired").max(100, "plugin_channels.errors.nameTooLong"),
    address: z
      .string()
      .trim()
      .min(1, "plugin_channels.errors.addressRequired")
      .max(254, "plugin_channels.errors.addressTooLong")
      .refine((v) => !EMAIL_KINDS.has(kind) || EMAIL_PATTERN.test(v), { message: "account.badEmail" }),
    department: z
      .string()
      .trim()
      .refine((v) => v === "" || departments.includes(Number(v)), "plugin_channels.errors.department"),
  };
  for (const field of adapter.fields) {
    const required = field.required && !(field.secret && secretsSet.includes(field.name));
    let check = z.string();
    if (field.type === "checkbox") {
      shape[fieldInput(field.name)] = z.preprocess(
        orEmpty,
        z.string().transform((v) => (v ? "1" : "")),
      );
      continue;
    }
    if (field.type === "select") {
      // an option's value, or empty (its first option) when the field may be left out
      const values = (field.options ?? []).map((o) => o.value);
      shape[fieldInput(field.name)] = z.preprocess(
        orEmpty,
        z
          .string()
          .trim()
          .refine((v) => values.includes(v) || (v === "" && !field.required), "plugin_channels.errors.choice"),
      );
      continue;
    }
    if (required) check = check.min(1, "plugin_channels.errors.required");
    const typed =
      field.type === "number"
        ? check.refine((v) => v === "" || NUMBER.test(v.trim()), "plugin_channels.errors.number")
        : field.type === "email"
          ? check.refine((v) => v === "" || EMAIL_PATTERN.test(v.trim()), "account.badEmail")
          : field.type === "url"
            ? check.refine((v) => v === "" || /^https?:\/\/[^\s]+$/i.test(v.trim()), "plugin_channels.errors.url")
            : check.max(field.secret ? 4000 : 1000, "plugin_channels.errors.tooLong");
    // secrets are taken as typed (a password may start with a space); the rest is trimmed
    shape[fieldInput(field.name)] = z.preprocess(orEmpty, field.secret ? typed : typed.transform((v) => v.trim()));
  }
  return z.object(shape).superRefine((data, ctx) => {
    if (!adapter.validate) return;
    const { config, secrets } = splitFields(adapter.fields, data as Record<string, string>);
    for (const [name, message] of Object.entries(adapter.validate(config, secrets, secretsSet)))
      ctx.addIssue({ code: "custom", path: [fieldInput(name)], message });
  });
}

function splitFields(fields: AccountField[], data: Record<string, string>) {
  const config: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  for (const f of fields) (f.secret ? secrets : config)[f.name] = data[fieldInput(f.name)] ?? "";
  return { config, secrets };
}

// ---------- plan limits (spec section 9) ----------

/** What an admin is told when the workspace's plan is below a kind's minPlan. */
const PLAN_NEEDED: Record<number, string> = { [PLAN.BASIC]: "plugin_channels.errors.planBasic", [PLAN.PRO]: "plugin_channels.errors.planPro" };

/**
 * Whether this workspace's plan may add a kind that needs `minPlan`. A plan never recorded (99: a
 * self-hosted install, an Enterprise plan arranged by sales) limits nothing, as with seats.
 */
export async function planAllows(minPlan: number | undefined) {
  if (minPlan === undefined) return true;
  const plan = Number(await getSetting("plan"));
  return plan === PLAN.UNKNOWN || plan >= minPlan;
}

export type SaveOutcome = { ok: true; id: number } | { ok: false; result: FormResult; status: number };

/** Adds (no id) or changes an account from its form; refusals keep what was typed but never a secret. */
export async function saveAccountForm(form: FormData, by: By, id?: number): Promise<SaveOutcome> {
  const intent = id === undefined ? "add" : "edit";
  const current = id === undefined ? undefined : await accountRow(id);
  if (id !== undefined && !current) return { ok: false, result: formResult({ intent, message: "plugin_channels.errors.notFound" }), status: 404 };
  const kind = (current?.kind ?? String(form.get("kind") ?? "")) as Channel;
  const adapter = connectableKinds().includes(kind) ? await adapterFor(kind) : undefined;
  if (!adapter) return { ok: false, result: formResult({ intent, errors: { kind: "plugin_channels.errors.kind" } }), status: 400 };
  const values = keptValues(form, adapter.fields);
  if (id === undefined && !(await planAllows(adapter.minPlan)))
    return { ok: false, result: formResult({ intent, message: PLAN_NEEDED[adapter.minPlan!] ?? "plugin_channels.errors.planHigher", values }), status: 403 };
  const departments = (await listDepartmentChoices()).map((d) => d.id);
  const secretsSet = current ? accountSummary(current).secretsSet : [];
  const names = ["name", "address", "department", ...adapter.fields.map((f) => fieldInput(f.name))];
  const parsed = accountSchema(kind, adapter, departments, secretsSet).safeParse(formValues(form, names));
  if (!parsed.success) return { ok: false, result: formError(parsed.error, values, intent), status: 400 };
  const data = parsed.data as Record<string, string>;
  const address = data.address.toLowerCase();

  const { db, schema } = getDb();
  const a = schema.channelAccounts;
  const taken = await db
    .select({ id: a.id })
    .from(a)
    .where(and(eq(a.kind, kind), eq(a.address, address), id === undefined ? undefined : ne(a.id, id)));
  const refusedTaken = (): SaveOutcome => ({
    ok: false,
    result: formResult({ intent, errors: { address: "plugin_channels.errors.addressTaken" }, values }),
    status: 409,
  });
  if (taken.length) return refusedTaken();

  const { config, secrets } = splitFields(adapter.fields, data);
  const input = { kind, name: data.name, address, departmentId: data.department ? Number(data.department) : null, config, secrets };
  let saved: number;
  try {
    saved = await getDb().transaction(async (tx) => {
      const savedId = await saveAccount(input, id, tx);
      // which settings changed is named, never the values of secrets
      const changed = Object.entries(secrets)
        .filter(([, v]) => v)
        .map(([k]) => k);
      await audit(
        {
          action: id === undefined ? "channel.create" : "channel.update",
          actor: by.actor,
          ip: by.ip,
          target: { type: "channel_account", id: savedId },
          detail: { name: input.name, kind, address, secretsChanged: changed },
        },
        tx,
      );
      return savedId;
    });
  } catch (error) {
    // two admins adding the same address at once: the unique index answers
    if (isUniqueViolation(error)) return refusedTaken();
    throw error;
  }
  accountsChanged(saved);
  return { ok: true, id: saved };
}

export async function setEnabled(id: number, enabled: boolean, by: By) {
  const row = await accountRow(id);
  if (!row) return false;
  const { schema } = getDb();
  await getDb().transaction(async (tx) => {
    await tx.update(schema.channelAccounts).set({ enabled, updatedAt: Date.now() }).where(eq(schema.channelAccounts.id, id));
    await audit(
      {
        action: enabled ? "channel.enable" : "channel.disable",
        actor: by.actor,
        ip: by.ip,
        target: { type: "channel_account", id },
        detail: { name: row.name, kind: row.kind },
      },
      tx,
    );
  });
  accountsChanged(id);
  return true;
}

/** Removes an account. Its conversations stay; inbound events keep no account (set null by the database). */
export async function deleteAccount(id: number, by: By) {
  const row = await accountRow(id);
  if (!row) return false;
  const { schema } = getDb();
  await getDb().transaction(async (tx) => {
    await tx.delete(schema.channelAccounts).where(eq(schema.channelAccounts.id, id));
    await audit(
      {
        action: "channel.delete",
        actor: by.actor,
        ip: by.ip,
        target: { type: "channel_account", id },
        detail: { name: row.name, kind: row.kind, address: row.address },
      },
      tx,
    );
  });
  accountsChanged(id);
  return true;
}

/** How long the Test button waits for a provider before calling it failing. */
const TEST_TIMEOUT_MS = 30_000;

/** Runs the adapter's test and stores its outcome (shown on the pages); answers it. */
export async function testAccount(id: number, by: By) {
  const account = await loadAccount(id);
  if (!account) return null;
  const adapter = await adapterFor(account.kind);
  let outcome: { ok: true } | { ok: false; error: string };
  if (!adapter) outcome = { ok: false, error: `No adapter for ${account.kind}` };
  else {
    let timer: NodeJS.Timeout | undefined;
    try {
      outcome = await Promise.race([
        adapter.test(account),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("No answer within 30 seconds")), TEST_TIMEOUT_MS))),
      ]);
    } catch (error) {
      outcome = { ok: false, error: error instanceof Error ? error.message : String(error) };
    } finally {
      clearTimeout(timer);
    }
  }
  await setAccountState(id, outcome);
  await audit({
    action: "channel.test",
    actor: by.actor,
    ip: by.ip,
    target: { type: "channel_account", id },
    detail: { name: account.name, kind: account.kind, ok: outcome.ok, ...(outcome.ok ? {} : { error: outcome.error.slice(0, 300) }) },
  });
  return outcome;
}

// ---------- what the pages show ----------

/** Replies that cannot leave: waiting because no mail server is configured, and failed ones. */
export async function deliveryTrouble() {
  const { db, schema } = getDb();
  const m = schema.messages;
  const [[waiting], [failed]] = await Promise.all([
    db
      .select({ n: count() })
      .from(m)
      .where(and(eq(m.deliveryState, "waiting"), eq(m.deliveryError, "not-configured"))),
    db.select({ n: count() }).from(m).where(eq(m.deliveryState, "failed")),
  ]);
  return { waiting: Number(waiting?.n ?? 0), failed: Number(failed?.n ?? 0), relayConfigured: !!process.env.SMTP_RELAY_URL };
}

/** The latest refused inbound events (quarantined or failed), for an admin to see refused mail. */
export async function refusedEvents(limit = 20) {
  const { db, schema } = getDb();
  const e = schema.inboundEvents;
  return db
    .select({ id: e.id, receivedAt: e.receivedAt, source: e.source, provider: e.provider, state: e.state, reason: e.error, accountId: e.accountId })
    .from(e)
    .where(inArray(e.state, ["quarantined", "failed"]))
    .orderBy(desc(e.receivedAt), desc(e.id))
    .limit(limit);
}

/** Everything /settings/channels lists. */
export async function channelsPage() {
  const [accounts, kinds, departments, trouble, refused] = await Promise.all([
    listAccounts(),
    kindForms(),
    listDepartmentChoices(),
    deliveryTrouble(),
    refusedEvents(),
  ]);
  return { accounts, kinds, departments, trouble, refused };
}

/** The account's edit page: its summary (no secret values) and its kind's fields. */
export async function accountPage(id: number) {
  const row = await accountRow(id);
  if (!row) return null;
  const adapter = await adapterFor(row.kind).catch(() => undefined);
  return {
    account: accountSummary(row),
    fields: adapter?.fields ?? [],
    departments: await listDepartmentChoices(),
    webhookPath: adapter?.webhook ? webhookPath(row.id) : null,
  };
}
