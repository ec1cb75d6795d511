// Scam and risk hints (plugins/ai/scam.ts, scam.server.ts) on real shapes of phishing: look-alike
// domains of the kinds phishing reports list (digits for letters, "rn" for "m", Cyrillic letters
// in punycode, the brand with extra words, the brand's domain in front of someone else's), links
// whose text names another site, bare-IP links, and the pressure and payment phrases of scam mail
// and SMS in English and Malay; the real domains of the same brands give no hint. With the
// workspace's history, on both dialects: a bank account several unrelated contacts sent is a hint
// (one contact sending it again is not), and a mail that failed DMARC is one.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { receive } from "~/conversation/receive.server";
import { linkHints, linksOf, messageHints, numbersOf, phraseHints, skeleton } from "@plugins/ai/scam";
import { contactsSending, scamHintsForMessage } from "@plugins/ai/scam.server";
import { analysePending, defineAnalyseJob } from "@plugins/ai/analysis.server";
import { resetServiceState } from "@plugins/ai/service.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-ai-scam-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const kinds = (url: string, text?: string) => linkHints({ url, text }).map((h) => h.kind);

describe("link hints", () => {
  it("finds look-alike domains of well-known brands, and says how they imitate", () => {
    const lookalike = (url: string) => linkHints({ url }).find((h) => h.kind === "lookalike");
    expect(lookalike("http://paypa1.com/signin")?.values).toMatchObject({ brand: "paypal.com", how: "t:plugin_ai.scam.how.letters" });
    expect(lookalike("https://www.arnazon.com/gp/orders")?.values).toMatchObject({ brand: "amazon.com", how: "t:plugin_ai.scam.how.letters" });
    // Cyrillic "а" in pаypal.com, as the browser gets it (punycode)
    expect(lookalike("https://xn--pypal-4ve.com/")?.values).toMatchObject({ domain: "pаypal.com", brand: "paypal.com" });
    expect(lookalike("https://paypal-secure-login.com/verify")?.values.how).toBe("t:plugin_ai.scam.how.extra");
    expect(lookalike("https://maybank2u.com.my.account-update.xyz/login")?.values).toMatchObject({
      brand: "maybank.com",
      how: "t:plugin_ai.scam.how.subdomain",
    });
    expect(lookalike("https://netflx.com/billing")?.values).toMatchObject({ brand: "netflix.com", how: "t:plugin_ai.scam.how.typo" });
    expect(lookalike("https://shopee-rewards.online/claim")?.values.brand).toBe("shopee.com");
  });

  it("gives no hint for the brands' own domains and ordinary sites", () => {
    for (const url of [
      "https://www.paypal.com/myaccount/summary",
      "https://www.maybank2u.com.my/home/m2u/common/login.do",
      "https://appleid.apple.com/",
      "https://www.amazon.co.uk/gp/css/order-history",
      "https://github.com/omnidesk",
      "https://www.bbc.co.uk/news",
      "https://shopee.com.my/cart",
    ])
      expect(kinds(url), url).toEqual([]);
    expect(skeleton("paypa1")).toBe("paypal");
  });

  it("sees a link whose text names another site than the one it goes to, in HTML and in Markdown", () => {
    const html =
      '<p>Log in at <a href="http://203.0.113.9/m2u/login.php">www.maybank2u.com.my</a> or <a href="https://tinyurl.example.net/x">https://www.paypal.com</a></p>';
    const links = linksOf("Log in at www.maybank2u.com.my", html);
    const hints = links.flatMap(linkHints);
    expect(hints.map((h) => h.kind)).toEqual(expect.arrayContaining(["ip_link", "mismatch"]));
    expect(hints.find((h) => h.kind === "mismatch")?.values).toMatchObject({ shown: "paypal.com", domain: "example.net" });
    expect(kinds("https://bit.ly.example.org/x", "https://www.dhl.com/track")).toContain("mismatch");
    // a text that is the same site is fine
    expect(kinds("https://www.paypal.com/help", "paypal.com help centre")).toEqual([]);
    expect(
      linksOf("See [your parcel](https://dhl-parcel-redelivery.com/t) now")
        .flatMap(linkHints)
        .map((h) => h.kind),
    ).toEqual(["lookalike"]);
  });
});

describe("phrase hints", () => {
  it("flags the pressure and payment phrases of real scam messages", () => {
    // shapes of messages reported to banks and couriers (amounts and names changed)
    const sms = "MAYBANK: Your account will be suspended within 24 hours. Verify your account now at maybank2u-my.com";
    expect(messageHints(sms).map((h) => h.kind)).toEqual(expect.arrayContaining(["pressure", "lookalike"]));
    const courier = "DHL: your parcel is held at customs. Pay the customs fee of RM2.99 immediately or it will be returned";
    expect(
      phraseHints(courier)
        .map((h) => h.kind)
        .sort(),
    ).toEqual(["payment", "pressure"]);
    const ms = "Akaun anda akan disekat. Sila berikan kod OTP anda segera kepada pegawai kami.";
    expect(
      phraseHints(ms)
        .map((h) => h.kind)
        .sort(),
    ).toEqual(["payment", "pressure"]);
    const gift = "I am the director, I need you to buy 5 Google Play cards for a client and send me the codes, it is urgent";
    expect(
      phraseHints(gift)
        .map((h) => h.kind)
        .sort(),
    ).toEqual(["payment", "pressure"]);
  });

  it("reads a secret asked for, i/l/1 look-alikes and a brand's other domain names", () => {
    expect(phraseHints("Please send me the 6 digit code you just received, it went to you by mistake").map((h) => h.kind)).toEqual(["payment"]);
    expect(phraseHints("Hi, this is the bank. Tell me the OTP we just sent so we can stop the transaction.")[0].confidence).toBeGreaterThanOrEqual(0.5);
    expect(messageHints("Your membership will be suspended. Update card: netfl1x-billing.com").map((h) => h.kind)).toContain("lookalike");
    expect(messageHints("Sila log masuk di pbebank-secure.com").find((h) => h.kind === "lookalike")?.values.brand).toBe("pbebank.com");
    // an ordinary site whose name holds a common word of a brand's domain is not a look-alike
    expect(messageHints("We use livechat-support.com for our shop").filter((h) => h.kind === "lookalike")).toEqual([]);
  });

  it("keeps one word an upset customer also says under the 0.5 threshold, and raises it beside a payment ask", () => {
    for (const text of [
      "This is urgent, my shop opens tomorrow and the POS still fails!",
      "Do you accept gift cards for online orders?",
      "Is there a customs fee for Sabah?",
    ])
      expect(Math.max(0, ...messageHints(text).map((h) => h.confidence)), text).toBeLessThan(0.5);
    const hints = phraseHints("Send 5 gift cards immediately");
    expect(hints.every((h) => h.confidence >= 0.5)).toBe(true);
  });

  it("is quiet on ordinary customer messages", () => {
    for (const text of [
      "Hi, my parcel hasn't arrived yet, can you check order 55123?",
      "Thank you so much, the refund came through today!",
      "Where do I change my delivery address?",
      "I was charged twice for my subscription last month, please help",
    ])
      expect(messageHints(text), text).toEqual([]);
  });
});

describe("numbers", () => {
  it("reads phone numbers and bank accounts however they are written, and not dates or short numbers", () => {
    expect(numbersOf("Call me on +60 12-345 6789 or transfer to Maybank account 1122 3344 5566")).toEqual(
      expect.arrayContaining([
        { kind: "phone", value: "60123456789" },
        { kind: "account", value: "112233445566" },
      ]),
    );
    expect(numbersOf("IBAN GB82 WEST 1234 5698 7654 32 please")).toEqual([{ kind: "account", value: "GB82WEST12345698765432" }]);
    expect(numbersOf("Order 5512 from 12/03/2025, RM 45.90")).toEqual([]);
  });
});

describe.each(DIALECTS)("scam hints with the workspace's history (%s)", (dialect) => {
  let t: TestDb;
  let seq = 0;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    defineAnalyseJob();
    resetServiceState();
  }, 60_000);
  afterAll(async () => t?.cleanup());

  const customerWrites = async (body: string, who: { email?: string; name?: string }) =>
    (
      await receive({
        ticket: {
          channel: "EMAIL",
          title: `Scam ${++seq}`,
          contactName: who.name ?? "",
          contactEmail: who.email ?? "",
          contactPhone: "",
          customerId: "",
          departmentId: null,
          receiverEmail: "",
          channelAccountId: null,
        },
        message: { body, type: "text", senderName: "" },
        files: [],
      })
    ).ticket;

  it("warns of a bank account that unrelated contacts sent, not of one contact repeating it", async () => {
    const pay = "Please pay the deposit to CIMB account 8001 2345 6789 today";
    const one = await customerWrites(pay, { email: "a.lee@example.com" });
    await customerWrites(`Again: ${pay}`, { email: "a.lee@example.com" });
    await analysePending(0);
    expect(await contactsSending("800123456789")).toBe(1);
    expect((await scamHintsForMessage({ ticketId: one.id })).map((h) => h.kind)).not.toContain("shared_number");

    await customerWrites(pay, { email: "b.tan@example.org" });
    const third = await customerWrites(`Transfer to account 800123456789 now`, { name: "C. Wong" });
    await analysePending(0);
    expect(await contactsSending("800123456789")).toBe(3);
    const hint = (await scamHintsForMessage({ ticketId: third.id })).find((h) => h.kind === "shared_number");
    expect(hint).toMatchObject({ values: { number: "800123456789", contacts: "3", kind: "t:plugin_ai.scam.numberKind.account" } });
    expect(hint!.confidence).toBeGreaterThan(0.5);
  });

  it("says a domain is new to the workspace the first time only", async () => {
    const first = await customerWrites("Is https://parcel-help-centre.example/track yours?", { email: "d@example.com" });
    const second = await customerWrites("Again, https://parcel-help-centre.example/track", { email: "e@example.com" });
    expect((await scamHintsForMessage({ ticketId: first.id })).map((h) => h.kind)).toContain("new_domain");
    expect((await scamHintsForMessage({ ticketId: second.id })).map((h) => h.kind)).not.toContain("new_domain");
  });

  it("warns of a mail that failed DMARC", async () => {
    const ticket = await customerWrites("Please update our bank details for the next invoice", { email: "ceo@example.com" });
    const { db, schema } = t.handle;
    const [message] = await db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticket.id));
    await db.insert(schema.emailMessages).values({
      messageId: message.id,
      ticketId: ticket.id,
      direction: "in",
      internetMessageId: `<scam-${dialect}@example.com>`,
      auth: JSON.stringify({ spf: "fail", dkim: "none", dmarc: "fail", authenticated: false, method: "smtp" }),
      createdAt: Date.now(),
    });
    const hint = (await scamHintsForMessage({ ticketId: ticket.id })).find((h) => h.kind === "auth_failed");
    expect(hint).toMatchObject({ values: { checks: "SPF, DMARC" }, confidence: 0.8 });
  });
});
