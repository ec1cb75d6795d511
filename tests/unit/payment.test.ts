// Payments on both dialects: the server recomputes amounts, refuses bad input, and a paid payment
// activates plan and seats exactly once however many times the verdict arrives. Billplz is driven
// through a local HTTP server that speaks its v3 API.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { setSetting } from "~/models/settings.server";
import { findUserByUsername } from "~/accounts/users.server";
import { createPayment, getSubscription, listInvoices, paymentForUser, paymentByRef, saveBilling, settlePayment } from "@plugins/payment/payments.server";
import { billplzProvider, billplzSignature, sandboxProvider } from "@plugins/payment/providers.server";
import { countryOfIp } from "@plugins/payment/geo.server";
import { PERIOD_MS } from "@plugins/payment/rules";

const NOW = Date.UTC(2026, 10, 21, 12);
const origin = "http://localhost:3000";
let keyN = 0;
const key = () => `key-${Date.now()}-${++keyN}`;

async function trialWorkspace() {
  const { db, schema } = (await import("@db/client")).getDb();
  await db.delete(schema.invoices);
  await db.delete(schema.payments);
  await setSetting("plan", "0");
  await setSetting("account_type", "0");
  await setSetting("account_expires_at", String(Date.now() - 1000));
  await setSetting("seats", "0");
  await saveBilling("Demo Sdn Bhd", "billing@example.com");
}

describe.each(DIALECTS)("payments on %s", (dialect) => {
  let t: TestDb;
  let admin: number;
  let agent: number;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 5, now: NOW });
    admin = (await findUserByUsername("admin"))!.id;
    agent = (await findUserByUsername("agent"))!.id;
  });
  afterAll(async () => t?.cleanup());
  beforeEach(trialWorkspace);

  it("a trial buys Basic for 3 users in Malaysia: MYR 288.36 with SST; success activates plan, seats, expiry and an invoice", async () => {
    const created = await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "MY", origin });
    expect(created).toMatchObject({ ok: true, status: "PENDING" });
    if (!created.ok) throw new Error();
    expect(created.checkoutUrl).toBe(`/payment/sandbox/${created.ref}`);
    const row = await paymentByRef(created.ref);
    expect(row).toMatchObject({
      plan: 2,
      quantity: 3,
      currency: "MYR",
      amountMinor: 26700,
      taxBp: 800,
      taxMinor: 2136,
      totalMinor: 28836,
      status: "PENDING",
      provider: "sandbox",
    });

    const before = Date.now();
    expect(await settlePayment("sandbox", { providerRef: created.ref, status: "SUCCESS", description: "" })).toEqual({ changed: true });
    const sub = await getSubscription();
    expect(sub).toMatchObject({ plan: 2, accountType: 1, seats: 3, trial: false, active: true });
    expect(sub.expiresAt! - before).toBeGreaterThanOrEqual(PERIOD_MS - 5);
    expect((await paymentByRef(created.ref))!.status).toBe("SUCCESS");
    expect(await listInvoices()).toHaveLength(1);
  });

  it("the same verdict twice, or twice at once, activates once", async () => {
    const created = await createPayment({ userId: admin, plan: 3, quantity: 2, idempotencyKey: key(), country: "MY", origin });
    if (!created.ok) throw new Error(created.description);
    const event = { providerRef: created.ref, status: "SUCCESS" as const, description: "" };
    const results = await Promise.all([settlePayment("sandbox", event), settlePayment("sandbox", event)]);
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    const expiry = (await getSubscription()).expiresAt;
    expect(await settlePayment("sandbox", event)).toEqual({ changed: false, reason: "settled" });
    // a late FAILED cannot undo it either
    expect(await settlePayment("sandbox", { ...event, status: "FAILED", description: "late" })).toMatchObject({ changed: false });
    expect(await getSubscription()).toMatchObject({ plan: 3, seats: 2, expiresAt: expiry });
    expect(await listInvoices()).toHaveLength(1);
  });

  it("a double submit with one key makes one payment", async () => {
    const k = key();
    const [a, b] = await Promise.all([
      createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: k, country: "MY", origin }),
      createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: k, country: "MY", origin }),
    ]);
    expect(a.ok && b.ok && a.ref === b.ref).toBe(true);
    const again = await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: k, country: "MY", origin });
    expect(again.ok && a.ok && again.ref === a.ref).toBe(true);
  });

  it("a failed payment keeps the provider's description and changes nothing", async () => {
    const created = await createPayment({ userId: admin, plan: "1", quantity: "1", idempotencyKey: key(), country: "MY", origin });
    if (!created.ok) throw new Error();
    await settlePayment("sandbox", { providerRef: created.ref, status: "FAILED", description: "Card declined by issuer" });
    expect(await paymentForUser(created.ref, admin)).toMatchObject({ status: "FAILED", description: "Card declined by issuer" });
    expect(await getSubscription()).toMatchObject({ plan: 0, accountType: 0, seats: 0 });
  });

  it("refuses bad quantities; ignores a tampered price, recomputes from the server's table", async () => {
    for (const quantity of ["0", "-3", "1.5", "", "abc", "100001", 2.5, -1, "1e3"]) {
      expect(await createPayment({ userId: admin, plan: "2", quantity, idempotencyKey: key(), country: "MY", origin }), String(quantity)).toEqual({
        ok: false,
        error: "quantity",
        description: "This cannot be empty.",
      });
    }
    for (const plan of ["4", "0", "9", "abc", 2.5]) {
      expect(await createPayment({ userId: admin, plan, quantity: "3", idempotencyKey: key(), country: "MY", origin }), String(plan)).toMatchObject({
        ok: false,
      });
    }
    const tampered = await createPayment({
      userId: admin,
      plan: "2",
      quantity: "3",
      idempotencyKey: key(),
      country: "SG",
      origin,
      ...({ price: 1, amount: 1 } as object),
    });
    if (!tampered.ok) throw new Error();
    expect(await paymentByRef(tampered.ref)).toMatchObject({ currency: "SGD", totalMinor: 8100, taxMinor: 0 });
  });

  it("a payment in progress blocks another; an active plan and Enterprise block purchases; renew needs a paid plan", async () => {
    const first = await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "MY", origin });
    expect(first.ok).toBe(true);
    expect(await createPayment({ userId: admin, plan: "3", quantity: "3", idempotencyKey: key(), country: "MY", origin })).toMatchObject({
      ok: false,
      error: "in_progress",
    });
    if (!first.ok) throw new Error();
    await settlePayment("sandbox", { providerRef: first.ref, status: "SUCCESS", description: "" });
    expect(await createPayment({ userId: admin, plan: "3", quantity: "3", idempotencyKey: key(), country: "MY", origin })).toMatchObject({
      ok: false,
      error: "active",
    });
    // expired Basic: Pay Now (plan omitted) renews Basic
    await setSetting("account_expires_at", String(Date.now() - 1000));
    const renew = await createPayment({ userId: admin, plan: undefined, quantity: "4", idempotencyKey: key(), country: "MY", origin });
    if (!renew.ok) throw new Error(renew.description);
    expect(await paymentByRef(renew.ref)).toMatchObject({ plan: 2, quantity: 4 });
    await settlePayment("sandbox", { providerRef: renew.ref, status: "FAILED", description: "x" });
    await setSetting("plan", "4");
    await setSetting("account_type", "1");
    expect(await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "MY", origin })).toMatchObject({
      ok: false,
      error: "enterprise",
    });
    await setSetting("plan", "0");
    await setSetting("account_type", "0");
    expect(await createPayment({ userId: admin, plan: undefined, quantity: "3", idempotencyKey: key(), country: "MY", origin })).toMatchObject({
      ok: false,
      error: "no_plan",
    });
  });

  it("without billing information: 'Billing information could not be found.'", async () => {
    await setSetting("billing_email", "");
    expect(await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "MY", origin })).toEqual({
      ok: false,
      error: "billing",
      description: "Billing information could not be found.",
    });
  });

  it("someone else's payment ref is not found", async () => {
    const created = await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "MY", origin });
    if (!created.ok) throw new Error();
    expect(await paymentForUser(created.ref, agent)).toBeNull();
    expect(await paymentForUser("PAY-nope", admin)).toBeNull();
  });

  describe("Billplz", () => {
    const X_KEY = "S-test-signature-key";
    let server: http.Server;
    let apiUrl: string;
    const bills: Record<string, string>[] = [];
    let auth = "";
    beforeAll(async () => {
      // speaks POST /api/v3/bills like Billplz: basic auth with the API key, form body, JSON bill back
      server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", () => {
          auth = req.headers.authorization ?? "";
          if (req.method !== "POST" || req.url !== "/api/v3/bills") return res.writeHead(404).end();
          if (auth !== `Basic ${Buffer.from("api-key:").toString("base64")}`) {
            res.writeHead(401, { "Content-Type": "application/json" });
            return res.end(JSON.stringify({ error: { type: "Unauthorized", message: "Invalid access key" } }));
          }
          const fields = Object.fromEntries(new URLSearchParams(body));
          bills.push(fields);
          const id = `bill${bills.length}`;
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(
            JSON.stringify({
              id,
              collection_id: fields.collection_id,
              paid: false,
              state: "due",
              amount: Number(fields.amount),
              url: `https://billplz.example/bills/${id}`,
            }),
          );
        });
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    const provider = () => billplzProvider({ apiKey: "api-key", collectionId: "col1", xSignatureKey: X_KEY, apiUrl });
    const callback = (id: string, paid: boolean, amount: number, extra: Record<string, string> = {}) => {
      const fields: Record<string, string> = {
        id,
        collection_id: "col1",
        paid: String(paid),
        state: paid ? "paid" : "due",
        amount: String(amount),
        paid_amount: paid ? String(amount) : "0",
        due_at: "2026-11-21",
        email: "billing@example.com",
        mobile: "",
        name: "DEMO SDN BHD",
        url: `https://billplz.example/bills/${id}`,
        paid_at: "2026-11-21 12:00:00 +0800",
        ...extra,
      };
      return { ...fields, x_signature: billplzSignature(fields, X_KEY) };
    };

    it("creates a bill for the total in sen and returns its checkout URL", async () => {
      const created = await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "MY", origin }, provider());
      if (!created.ok) throw new Error(created.description);
      expect(created.checkoutUrl).toMatch(/^https:\/\/billplz\.example\/bills\/bill\d+$/);
      expect(bills.at(-1)).toMatchObject({
        collection_id: "col1",
        amount: "28836",
        email: "billing@example.com",
        name: "Demo Sdn Bhd",
        callback_url: `${origin}/api/payment/webhook/billplz`,
        reference_1: created.ref,
      });
    });

    it("a signed paid callback activates; a forged or altered one is refused and changes nothing", async () => {
      const created = await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "MY", origin }, provider());
      if (!created.ok) throw new Error();
      const billId = (await paymentByRef(created.ref))!.providerRef!;
      const good = callback(billId, true, 28836);
      expect(provider().verifyWebhook({ ...good, x_signature: "0".repeat(64) })).toBeNull();
      expect(provider().verifyWebhook({ ...good, paid_amount: "1" })).toBeNull();
      expect(provider().verifyWebhook({ ...good, x_signature: "" })).toBeNull();
      expect(await getSubscription()).toMatchObject({ plan: 0, accountType: 0 });
      const event = provider().verifyWebhook(good)!;
      expect(event).toEqual({ providerRef: billId, status: "SUCCESS", description: "", paidMinor: 28836 });
      expect(await settlePayment("billplz", event)).toEqual({ changed: true });
      expect(await settlePayment("billplz", event)).toMatchObject({ changed: false });
      expect(await getSubscription()).toMatchObject({ plan: 2, seats: 3 });
    });

    it("a paid amount that differs from the bill fails the payment instead of activating", async () => {
      const created = await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "MY", origin }, provider());
      if (!created.ok) throw new Error();
      const billId = (await paymentByRef(created.ref))!.providerRef!;
      await settlePayment("billplz", provider().verifyWebhook(callback(billId, true, 100))!);
      expect(await paymentByRef(created.ref)).toMatchObject({ status: "FAILED" });
      expect(await getSubscription()).toMatchObject({ plan: 0 });
    });

    it("a failed transaction shows why; an unpaid due bill stays pending", async () => {
      const created = await createPayment({ userId: admin, plan: "1", quantity: "1", idempotencyKey: key(), country: "MY", origin }, provider());
      if (!created.ok) throw new Error();
      const billId = (await paymentByRef(created.ref))!.providerRef!;
      expect(provider().verifyWebhook(callback(billId, false, 5292))).toMatchObject({ status: "PENDING" });
      await settlePayment("billplz", provider().verifyWebhook(callback(billId, false, 5292, { transaction_status: "failed" }))!);
      expect(await paymentByRef(created.ref)).toMatchObject({ status: "FAILED", description: "The bank did not approve the payment." });
    });

    it("the webhook route: a bad signature is refused and changes nothing; a good one activates once", async () => {
      const { action } = await import("@plugins/payment/routes/webhook");
      const env = {
        PAYMENT_PROVIDER: "billplz",
        BILLPLZ_API_KEY: "api-key",
        BILLPLZ_COLLECTION_ID: "col1",
        BILLPLZ_X_SIGNATURE_KEY: X_KEY,
        BILLPLZ_API_URL: apiUrl,
      };
      const saved = { ...process.env };
      Object.assign(process.env, env);
      try {
        const created = await createPayment({ userId: admin, plan: "3", quantity: "2", idempotencyKey: key(), country: "MY", origin }, provider());
        if (!created.ok) throw new Error();
        const billId = (await paymentByRef(created.ref))!.providerRef!;
        const post = (fields: Record<string, string>) =>
          action({
            request: new Request(`${origin}/api/payment/webhook/billplz`, {
              method: "POST",
              headers: { "Content-Type": "application/x-www-form-urlencoded", Host: "localhost:3000" },
              body: new URLSearchParams(fields),
            }),
            params: { provider: "billplz" },
            context: { cspNonce: "", clientIp: "127.0.0.1" },
          });
        const paid = callback(billId, true, (await paymentByRef(created.ref))!.totalMinor);
        const forged = await post({ ...paid, x_signature: "ab".repeat(32) });
        expect(forged.status).toBe(400);
        expect(await getSubscription()).toMatchObject({ plan: 0, accountType: 0 });
        expect((await post(paid)).status).toBe(200);
        expect((await post(paid)).status).toBe(200);
        expect(await getSubscription()).toMatchObject({ plan: 3, seats: 2 });
        expect(await listInvoices()).toHaveLength(1);
      } finally {
        for (const k of Object.keys(env)) if (saved[k] === undefined) delete process.env[k];
      }
    });

    it("provider refusals become the payment's description; non-MYR is refused", async () => {
      const bad = billplzProvider({ apiKey: "wrong", collectionId: "col1", xSignatureKey: X_KEY, apiUrl });
      expect(await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "MY", origin }, bad)).toEqual({
        ok: false,
        error: "failed",
        description: "Invalid access key",
      });
      expect(await createPayment({ userId: admin, plan: "2", quantity: "3", idempotencyKey: key(), country: "SG", origin }, provider())).toEqual({
        ok: false,
        error: "failed",
        description: "This payment method accepts MYR only.",
      });
    });
  });
});

describe("sandbox provider and GeoIP", () => {
  it("the sandbox checks out on our own page and takes no webhooks", async () => {
    expect(
      await sandboxProvider.createCheckout({
        ref: "PAY-1",
        totalMinor: 1,
        currency: "MYR",
        description: "",
        billingName: "",
        billingEmail: "",
        callbackUrl: "",
        redirectUrl: "",
      }),
    ).toEqual({
      providerRef: "PAY-1",
      checkoutUrl: "/payment/sandbox/PAY-1",
    });
    expect(sandboxProvider.verifyWebhook({ id: "PAY-1", paid: "true" })).toBeNull();
  });
  it("countries from the offline database; loopback and private addresses are unknown", () => {
    expect(countryOfIp("8.8.8.8")).toBe("US");
    expect(countryOfIp("::ffff:8.8.8.8")).toBe("US");
    expect(countryOfIp("127.0.0.1")).toBeNull();
    expect(countryOfIp("10.1.2.3")).toBeNull();
    expect(countryOfIp("not an ip")).toBeNull();
    expect(countryOfIp(undefined)).toBeNull();
  });
});
