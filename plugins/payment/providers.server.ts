// Payment providers: the interface, the built-in sandbox (default, works offline) and Billplz
// (Malaysian FPX online banking and cards, API v3). Chosen by PAYMENT_PROVIDER.
import { createHmac, timingSafeEqual } from "node:crypto";

export interface CheckoutRequest {
  ref: string;
  totalMinor: number;
  currency: string;
  description: string;
  billingName: string;
  billingEmail: string;
  /** Absolute URL the provider posts its webhook to. */
  callbackUrl: string;
  /** Absolute URL the payer's browser returns to. */
  redirectUrl: string;
}

export interface CheckoutSession {
  providerRef: string;
  checkoutUrl: string;
}

export interface ProviderEvent {
  providerRef: string;
  status: "PENDING" | "SUCCESS" | "FAILED";
  description: string;
  /** What the provider says was paid, in minor units, when it says. */
  paidMinor?: number;
}

export interface PaymentProvider {
  id: string;
  createCheckout(request: CheckoutRequest): Promise<CheckoutSession>;
  /** A webhook body read and checked; null when its signature does not verify. */
  verifyWebhook(fields: Record<string, string>): ProviderEvent | null;
}

/** A provider refused or could not be reached; the message is shown as the payment's description. */
export class ProviderError extends Error {}

/** Checkout on our own page (/payment/sandbox/:ref), where a tester chooses the outcome. */
export const sandboxProvider: PaymentProvider = {
  id: "sandbox",
  async createCheckout(request) {
    return { providerRef: request.ref, checkoutUrl: `/payment/sandbox/${encodeURIComponent(request.ref)}` };
  },
  // the sandbox settles through its own page, never by webhook
  verifyWebhook: () => null,
};

export interface BillplzConfig {
  apiKey: string;
  collectionId: string;
  xSignatureKey: string;
  /** https://www.billplz.com/api (production) or https://www.billplz-sandbox.com/api */
  apiUrl: string;
}

/** Billplz X Signature: every key+value except x_signature, sorted case-insensitively, joined by "|", HMAC-SHA256. */
export function billplzSignature(fields: Record<string, string>, key: string) {
  const source = Object.entries(fields)
    .filter(([k]) => k !== "x_signature")
    .map(([k, v]) => `${k}${v}`)
    .sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))
    .join("|");
  return createHmac("sha256", key).update(source).digest("hex");
}

function sameHex(a: string, b: string) {
  return a.length === b.length && /^[0-9a-f]+$/i.test(a) && timingSafeEqual(Buffer.from(a.toLowerCase()), Buffer.from(b.toLowerCase()));
}

export function billplzProvider(config: BillplzConfig, fetchImpl: typeof fetch = fetch): PaymentProvider {
  return {
    id: "billplz",
    async createCheckout(request) {
      if (request.currency !== "MYR") throw new ProviderError("This payment method accepts MYR only.");
      const body = new URLSearchParams({
        collection_id: config.collectionId,
        email: request.billingEmail,
        name: request.billingName,
        amount: String(request.totalMinor),
        description: request.description.slice(0, 200),
        callback_url: request.callbackUrl,
        redirect_url: request.redirectUrl,
        reference_1_label: "Payment ref",
        reference_1: request.ref,
      });
      let response: Response;
      try {
        response = await fetchImpl(`${config.apiUrl.replace(/\/$/, "")}/v3/bills`, {
          method: "POST",
          headers: { Authorization: `Basic ${Buffer.from(`${config.apiKey}:`).toString("base64")}`, "Content-Type": "application/x-www-form-urlencoded" },
          body,
          signal: AbortSignal.timeout(15_000),
        });
      } catch {
        throw new ProviderError("The payment provider could not be reached. Please try again later.");
      }
      const data = (await response.json().catch(() => ({}))) as { id?: string; url?: string; error?: { message?: unknown } };
      if (!response.ok || typeof data.id !== "string" || typeof data.url !== "string") {
        const message = data.error?.message;
        throw new ProviderError(
          Array.isArray(message) ? message.join(" ") : typeof message === "string" ? message : `The payment provider answered ${response.status}.`,
        );
      }
      return { providerRef: data.id, checkoutUrl: data.url };
    },
    verifyWebhook(fields) {
      const signature = fields.x_signature ?? "";
      if (!signature || !sameHex(billplzSignature(fields, config.xSignatureKey), signature)) return null;
      if (typeof fields.id !== "string" || !fields.id) return null;
      const paidMinor = /^\d+$/.test(fields.paid_amount ?? "") ? Number(fields.paid_amount) : undefined;
      if (fields.paid === "true") return { providerRef: fields.id, status: "SUCCESS", description: "", paidMinor };
      // with "extra payment completion information" on, a refused attempt says transaction_status=failed
      if (fields.transaction_status === "failed" || fields.state === "deleted")
        return {
          providerRef: fields.id,
          status: "FAILED",
          description: fields.state === "deleted" ? "The bill was cancelled." : "The bank did not approve the payment.",
        };
      return { providerRef: fields.id, status: "PENDING", description: "" };
    },
  };
}

export function configuredProvider(env: NodeJS.ProcessEnv = process.env): PaymentProvider {
  const name = env.PAYMENT_PROVIDER || "sandbox";
  if (name === "sandbox") {
    // the sandbox lets whoever holds a payment ref mark it paid: never by default in production
    if (env.NODE_ENV === "production" && env.PAYMENT_SANDBOX !== "1")
      throw new Error("Payments need PAYMENT_PROVIDER=billplz in production (or PAYMENT_SANDBOX=1 to run the sandbox on purpose)");
    return sandboxProvider;
  }
  if (name === "billplz") {
    const config = {
      apiKey: env.BILLPLZ_API_KEY || "",
      collectionId: env.BILLPLZ_COLLECTION_ID || "",
      xSignatureKey: env.BILLPLZ_X_SIGNATURE_KEY || "",
      apiUrl: env.BILLPLZ_API_URL || "https://www.billplz.com/api",
    };
    if (!config.apiKey || !config.collectionId || !config.xSignatureKey)
      throw new Error("PAYMENT_PROVIDER=billplz needs BILLPLZ_API_KEY, BILLPLZ_COLLECTION_ID and BILLPLZ_X_SIGNATURE_KEY");
    return billplzProvider(config);
  }
  throw new Error(`Unknown PAYMENT_PROVIDER ${name}`);
}

/** Providers by id, for webhooks and settlement of payments made through any of them. */
export function providerById(id: string, env: NodeJS.ProcessEnv = process.env): PaymentProvider | undefined {
  if (id === "sandbox") return sandboxProvider;
  const current = configuredProvider(env);
  return current.id === id ? current : undefined;
}
