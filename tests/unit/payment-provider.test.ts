// Which payment provider runs: the sandbox by default, never by accident in production.
import { describe, expect, it } from "vitest";
import { configuredProvider as provider } from "@plugins/payment/providers.server";

/** The environment as the process would see it (only what matters here). */
const configuredProvider = (env: Record<string, string>) => provider(env as NodeJS.ProcessEnv);

describe("configured payment provider", () => {
  it("is the sandbox by default outside production", () => {
    expect(configuredProvider({}).id).toBe("sandbox");
  });
  it("refuses the sandbox in production unless asked for on purpose", () => {
    expect(() => configuredProvider({ NODE_ENV: "production" })).toThrow(/PAYMENT_PROVIDER=billplz/);
    expect(configuredProvider({ NODE_ENV: "production", PAYMENT_SANDBOX: "1" }).id).toBe("sandbox");
  });
  it("needs every Billplz credential", () => {
    expect(() => configuredProvider({ PAYMENT_PROVIDER: "billplz", BILLPLZ_API_KEY: "k" })).toThrow(/BILLPLZ_COLLECTION_ID/);
    const env = { PAYMENT_PROVIDER: "billplz", BILLPLZ_API_KEY: "k", BILLPLZ_COLLECTION_ID: "c", BILLPLZ_X_SIGNATURE_KEY: "s" };
    expect(configuredProvider(env).id).toBe("billplz");
  });
});
