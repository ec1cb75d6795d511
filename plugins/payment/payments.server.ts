// Payments: create (server recomputes every amount), status, settlement (activates the plan and
// seats exactly once), and the lists of payments and invoices. Plan, seats and expiry live in the
// workspace settings.
import { randomBytes } from "node:crypto";
import { and, desc, eq, gt } from "drizzle-orm";
import { getDb, type DB } from "@db/client";
import { getSettings, type SettingKey } from "~/models/settings.server";
import { audit, type AuditEvent } from "~/accounts/audit.server";
import { log } from "~/ops/log.server";
import { PLAN_KEYS, parseQuantity, pricingFor, quote } from "./money";
import { IN_PROGRESS_MS, isActive, isExpired, isTrialAccount, newExpiry, planToBuy, refusal, type SubscriptionState } from "./rules";
import { ProviderError, configuredProvider, type PaymentProvider, type ProviderEvent } from "./providers.server";

export const MESSAGES = {
  quantity: "This cannot be empty.",
  billing: "Billing information could not be found.",
  active: "A plan is already active.",
  enterprise: "Enterprise plans are arranged with our sales team.",
  in_progress: "A payment is already in progress.",
  plan: "Please choose a plan.",
  no_plan: "Please choose a plan.",
  failed: "Payment failed.",
} as const;
export type CreateError = keyof typeof MESSAGES;

export async function getSubscription() {
  const s = await getSettings();
  const state: SubscriptionState = {
    plan: Number(s.plan),
    accountType: Number(s.account_type),
    expiresAt: s.account_expires_at ? Number(s.account_expires_at) : null,
  };
  const now = Date.now();
  return {
    ...state,
    seats: Number(s.seats) || 0,
    trial: isTrialAccount(state),
    active: isActive(state, now),
    expired: isExpired(state, now),
    billingName: s.billing_name,
    billingEmail: s.billing_email,
    timeZone: s.timezone,
  };
}
export type Subscription = Awaited<ReturnType<typeof getSubscription>>;

/** A PENDING payment of the workspace younger than IN_PROGRESS_MS. */
export async function paymentInProgress(now = Date.now()) {
  const { db, schema } = getDb();
  const [row] = await db
    .select({ ref: schema.payments.ref, checkoutUrl: schema.payments.checkoutUrl, userId: schema.payments.userId })
    .from(schema.payments)
    .where(and(eq(schema.payments.status, "PENDING"), gt(schema.payments.createdAt, now - IN_PROGRESS_MS)))
    .limit(1);
  return row ?? null;
}

const newRef = () => `PAY-${randomBytes(12).toString("base64url")}`;

export interface CreateInput {
  userId: number;
  /** The plan as sent: absent (renew the current plan) or a number 1..3. */
  plan: unknown;
  quantity: unknown;
  idempotencyKey: unknown;
  /** The payer's country (GeoIP); the server's price table decides the amount. */
  country: string | null;
  /** http(s)://host of this server, for the provider's webhook and return addresses. */
  origin: string;
}

export type CreateResult = { ok: true; ref: string; checkoutUrl: string; status: string } | { ok: false; error: CreateError; description: string };

const fail = (error: CreateError, description: string = MESSAGES[error]): CreateResult => ({ ok: false, error, description });

/** The plan field: omitted or empty means "renew"; anything else must be a whole number. */
function readPlan(value: unknown): number | null | undefined {
  if (value === undefined || value === null || value === "") return null;
  const n = typeof value === "number" ? value : typeof value === "string" && /^\d{1,2}$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) ? n : undefined;
}

export async function createPayment(input: CreateInput, provider: PaymentProvider = configuredProvider()): Promise<CreateResult> {
  const { db, schema } = getDb();
  const key = typeof input.idempotencyKey === "string" && /^[\w-]{8,64}$/.test(input.idempotencyKey) ? input.idempotencyKey : null;
  const sameKey = async () => {
    if (!key) return undefined;
    const [existing] = await db
      .select()
      .from(schema.payments)
      .where(and(eq(schema.payments.userId, input.userId), eq(schema.payments.idempotencyKey, key)));
    return existing ? existingResult(existing) : undefined;
  };
  // a repeated submit of the same form finds its first payment
  const repeated = await sameKey();
  if (repeated) return repeated;
  const quantity = parseQuantity(input.quantity);
  if (quantity === null) return fail("quantity");
  const requested = readPlan(input.plan);
  if (requested === undefined) return fail("plan");
  const sub = await getSubscription();
  const refused = refusal(sub, requested, (await paymentInProgress()) !== null, Date.now());
  // (the twin of a double submit may have started its payment since the first look: that is
  // the "payment in progress" this one sees)
  if (refused) return (await sameKey()) ?? fail(refused);
  const plan = planToBuy(sub, requested)!;
  if (!sub.billingName.trim() || !sub.billingEmail.trim()) return fail("billing");

  const q = quote(pricingFor(input.country), plan, quantity);
  const ref = newRef();
  const description = `OmniDesk ${PLAN_KEYS[plan]} plan, ${quantity} user(s), 1 month`;
  try {
    await db.insert(schema.payments).values({
      ref,
      userId: input.userId,
      plan,
      quantity,
      currency: q.currency,
      unitMinor: q.unitMinor,
      amountMinor: q.amountMinor,
      taxBp: q.taxBp,
      taxMinor: q.taxMinor,
      totalMinor: q.totalMinor,
      status: "PENDING",
      provider: provider.id,
      idempotencyKey: key ?? `auto-${ref}`,
      createdAt: Date.now(),
    });
  } catch (error) {
    // the same key submitted twice at once: the unique index lets one through
    const twin = await sameKey();
    if (twin) return twin;
    throw error;
  }
  // the provider call is network I/O: outside any transaction
  try {
    const session = await provider.createCheckout({
      ref,
      totalMinor: q.totalMinor,
      currency: q.currency,
      description,
      billingName: sub.billingName,
      billingEmail: sub.billingEmail,
      callbackUrl: `${input.origin}/api/payment/webhook/${provider.id}`,
      redirectUrl: `${input.origin}/payment?ref=${encodeURIComponent(ref)}`,
    });
    await db.update(schema.payments).set({ providerRef: session.providerRef, checkoutUrl: session.checkoutUrl }).where(eq(schema.payments.ref, ref));
    return { ok: true, ref, checkoutUrl: session.checkoutUrl, status: "PENDING" };
  } catch (error) {
    const text = error instanceof ProviderError ? error.message : "The payment provider could not be reached. Please try again later.";
    if (!(error instanceof ProviderError)) log.error({ err: error, provider: provider.id }, "payment provider not reachable");
    await db
      .update(schema.payments)
      .set({ status: "FAILED", description: text, settledAt: Date.now() })
      .where(and(eq(schema.payments.ref, ref), eq(schema.payments.status, "PENDING")));
    return fail("failed", text);
  }
}

function existingResult(row: typeof import("@db/schema/sqlite").payments.$inferSelect): CreateResult {
  if (row.status === "FAILED") return fail("failed", row.description || MESSAGES.failed);
  return { ok: true, ref: row.ref, checkoutUrl: row.checkoutUrl ?? `/payment?ref=${encodeURIComponent(row.ref)}`, status: row.status };
}

/** The payment behind a ref, only for the user who made it (anyone else: null, shown as 404). */
export async function paymentForUser(ref: string, userId: number) {
  if (!ref) return null;
  const { db, schema } = getDb();
  const [row] = await db
    .select()
    .from(schema.payments)
    .where(and(eq(schema.payments.ref, ref), eq(schema.payments.userId, userId)));
  return row ?? null;
}

export async function paymentByRef(ref: string) {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.payments).where(eq(schema.payments.ref, ref));
  return row ?? null;
}

/**
 * Applies a provider's verdict. SUCCESS moves PENDING -> SUCCESS and activates plan, seats and
 * expiry and issues the invoice, all in one transaction, guarded by the conditional update: a
 * second webhook (or a concurrent one) changes nothing. Returns whether this call changed the payment.
 */
export async function settlePayment(providerId: string, event: ProviderEvent): Promise<{ changed: boolean; reason?: string }> {
  if (event.status === "PENDING") return { changed: false, reason: "pending" };
  const handle = getDb();
  return handle.transaction(async (tx) => {
    const { schema } = handle;
    const [payment] = await tx
      .select()
      .from(schema.payments)
      .where(and(eq(schema.payments.provider, providerId), eq(schema.payments.providerRef, event.providerRef)));
    if (!payment) return { changed: false, reason: "unknown" };
    if (payment.status !== "PENDING") return { changed: false, reason: "settled" };
    const now = Date.now();
    if (event.status === "SUCCESS" && event.paidMinor !== undefined && event.paidMinor !== payment.totalMinor) {
      // never activate on an amount we did not ask for
      await markFailed(tx, payment.id, "The amount paid does not match the amount due.", now);
      return { changed: true, reason: "amount" };
    }
    if (event.status === "FAILED") {
      const changed = await markFailed(tx, payment.id, event.description || MESSAGES.failed, now);
      return { changed };
    }
    const updated = await tx
      .update(schema.payments)
      .set({ status: "SUCCESS", settledAt: now })
      .where(and(eq(schema.payments.id, payment.id), eq(schema.payments.status, "PENDING")))
      .returning({ id: schema.payments.id });
    if (updated.length !== 1) return { changed: false, reason: "settled" };
    const settings = await readSettings(tx);
    const state: SubscriptionState = {
      plan: Number(settings.plan ?? 99),
      accountType: Number(settings.account_type ?? 1),
      expiresAt: settings.account_expires_at ? Number(settings.account_expires_at) : null,
    };
    const periodStart = Math.max(now, state.plan === payment.plan && !isTrialAccount(state) && state.expiresAt ? state.expiresAt : now);
    const expiresAt = newExpiry(state, payment.plan, now);
    await writeSettings(tx, { plan: String(payment.plan), account_type: "1", seats: String(payment.quantity), account_expires_at: String(expiresAt) });
    await tx.insert(schema.invoices).values({
      number: `INV-${new Date(now).getUTCFullYear()}-${String(payment.id).padStart(6, "0")}`,
      paymentId: payment.id,
      billingName: settings.billing_name ?? "",
      billingEmail: settings.billing_email ?? "",
      periodStart,
      periodEnd: expiresAt,
      issuedAt: now,
    });
    return { changed: true };
  });
}

async function markFailed(tx: DB, id: number, description: string, now: number) {
  const { schema } = getDb();
  const rows = await tx
    .update(schema.payments)
    .set({ status: "FAILED", description, settledAt: now })
    .where(and(eq(schema.payments.id, id), eq(schema.payments.status, "PENDING")))
    .returning({ id: schema.payments.id });
  return rows.length === 1;
}

async function readSettings(tx: DB) {
  const { schema } = getDb();
  const rows = await tx.select().from(schema.settings);
  return Object.fromEntries(rows.map((r) => [r.key, r.value])) as Partial<Record<SettingKey, string>>;
}

async function writeSettings(tx: DB, values: Partial<Record<SettingKey, string>>) {
  const { schema } = getDb();
  for (const [key, value] of Object.entries(values))
    await tx
      .insert(schema.settings)
      .values({ key, value: value! })
      .onConflictDoUpdate({ target: schema.settings.key, set: { value: value! } });
}

/** Who invoices are made out to; an admin's change is audited (settings.changed, what it was and is). */
export async function saveBilling(name: unknown, email: unknown, by?: Pick<AuditEvent, "actor" | "ip">) {
  const n = typeof name === "string" ? name.trim().slice(0, 200) : "";
  const e = typeof email === "string" ? email.trim().slice(0, 200) : "";
  if (!n) return { ok: false as const, field: "name" as const };
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(e)) return { ok: false as const, field: "email" as const };
  const handle = getDb();
  await handle.transaction(async (tx) => {
    const before = await readSettings(tx);
    const after = { billing_name: n, billing_email: e };
    const changed = Object.fromEntries(
      Object.entries(after)
        .filter(([k, v]) => (before[k as SettingKey] ?? "") !== v)
        .map(([k, v]) => [k, { from: before[k as SettingKey] ?? "", to: v }]),
    );
    await writeSettings(tx, after);
    if (by && Object.keys(changed).length) await audit({ ...by, action: "settings.changed", target: { type: "settings", id: "billing" }, detail: changed }, tx);
  });
  return { ok: true as const };
}

export async function listPayments(limit = 50) {
  const { db, schema } = getDb();
  return db.select().from(schema.payments).orderBy(desc(schema.payments.createdAt), desc(schema.payments.id)).limit(limit);
}

export async function listInvoices(limit = 50) {
  const { db, schema } = getDb();
  return db
    .select({
      number: schema.invoices.number,
      issuedAt: schema.invoices.issuedAt,
      periodStart: schema.invoices.periodStart,
      periodEnd: schema.invoices.periodEnd,
      billingName: schema.invoices.billingName,
      plan: schema.payments.plan,
      quantity: schema.payments.quantity,
      currency: schema.payments.currency,
      amountMinor: schema.payments.amountMinor,
      taxBp: schema.payments.taxBp,
      taxMinor: schema.payments.taxMinor,
      totalMinor: schema.payments.totalMinor,
    })
    .from(schema.invoices)
    .innerJoin(schema.payments, eq(schema.payments.id, schema.invoices.paymentId))
    .orderBy(desc(schema.invoices.issuedAt), desc(schema.invoices.id))
    .limit(limit);
}
