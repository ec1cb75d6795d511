// A campaign killed halfway (issue 19): the built server sends a campaign through the durable job
// queue to the Twilio stand-in, is killed with SIGKILL mid-send, and is started again on the same
// database. Every contact then has exactly one campaign conversation with one message, and the
// provider got one SMS per contact. The only send that may reach the provider twice is one cut
// between the provider's answer and its record (the message still "sending" at the kill): Twilio's
// API has no idempotency key, so such a send is retried; the test counts those and allows no other.
//   CHAOS_CAMPAIGN_RECIPIENTS (default 1,000; `npm run test:chaos -- campaign` with 50000 for the figure),
//   CHAOS_CAMPAIGN_DIALECTS (default sqlite; CHAOS_CAMPAIGN=1 runs both)
// It found extra SMS after the restart with no send cut mid-way (an outbound job run twice): on
// SQLite's one connection the worker's claim and outcome writes ran inside other flows' open
// transactions and were undone by their rollbacks, and a lease counted from the pass's start ran
// out under jobs still running. Both are mended (db/client.ts ownTurn, the worker's keepLease).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq, inArray, isNotNull, sql } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "../unit/harness";
import { SECRET, sleep, startNode, within, type Node } from "./harness";
import { startTwilioStandin, type TwilioStandin } from "../support/twilio-standin";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername } from "~/accounts/users.server";
import { saveAccount } from "@plugins/channels/accounts.server";
import { saveCampaign, startCampaign } from "@plugins/campaign/campaign.server";

process.env.SESSION_SECRET = SECRET;
const N = Number(process.env.CHAOS_CAMPAIGN_RECIPIENTS || 1_000);
const dialects =
  (process.env.CHAOS_CAMPAIGN_DIALECTS?.split(",") as typeof DIALECTS | undefined) ?? (process.env.CHAOS_CAMPAIGN === "1" ? DIALECTS : (["sqlite"] as const));
const phoneOf = (i: number) => `+6013${String(i).padStart(7, "0")}`;

describe.each(dialects)("a campaign to %s contacts killed halfway", (dialect) => {
  let t: TestDb;
  let twilio: TwilioStandin;
  let node: Node | undefined;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    twilio = await startTwilioStandin({ numbers: ["+15005550006"] });
    const { db, schema } = t.handle;
    const now = Date.now();
    for (let from = 0; from < N; from += 500) {
      const size = Math.min(500, N - from);
      await t.handle.transaction(async (tx) => {
        const made = await tx
          .insert(schema.contacts)
          .values(
            Array.from({ length: size }, (_, k) => ({
              uid: `chaos${from + k}`,
              name: `Kill Test ${from + k}`,
              nameKey: `kill test ${from + k}`,
              createdAt: now,
              updatedAt: now,
            })),
          )
          .returning({ id: schema.contacts.id, uid: schema.contacts.uid });
        await tx.insert(schema.contactIdentities).values(made.map((c) => ({ contactId: c.id, kind: "phone", value: phoneOf(Number(c.uid.slice(5))) })));
      });
    }
    expect(
      Number((await db.select({ n: count() }).from(schema.contactIdentities).where(eq(schema.contactIdentities.kind, "phone")))[0].n),
    ).toBeGreaterThanOrEqual(N);
  }, 600_000);
  afterAll(async () => {
    node?.proc.kill("SIGKILL");
    await twilio?.close();
    await t?.cleanup();
  });

  it("after SIGKILL mid-send and a restart, every contact gets exactly one message: none twice, none missing", async () => {
    const { db, schema } = t.handle;
    const admin = (await findUserByUsername("admin"))!;
    const account = await saveAccount({
      kind: "SMS",
      name: "Twilio",
      address: twilio.numbers[0],
      departmentId: 2,
      config: { gateway: "twilio", accountSid: twilio.accountSid, apiBase: twilio.apiBase },
      secrets: { authToken: twilio.authToken },
    });
    const saved = await saveCampaign(
      admin,
      {
        name: "Kill test",
        account: String(account),
        template: "Hi {{name}}, your offer.",
        perMinute: "1000",
        startsAt: "",
        audience: "search",
        query: "Kill Test",
      },
      "Asia/Kuala_Lumpur",
    );
    if (!saved.ok) throw new Error(JSON.stringify(saved.result));
    // the throttle is not what is tested here: the campaign may send as fast as the node can
    await db.update(schema.campaigns).set({ perMinute: 10_000_000 }).where(eq(schema.campaigns.id, saved.id));
    const started = await startCampaign(saved.id, admin);
    expect(started).toMatchObject({ ok: true, recipients: N });

    // a short lease: the restarted node takes over the killed node's jobs after 10 s instead of 5
    // minutes (a running job's lease is renewed every third of it, so a short one makes no duplicates)
    const env = { DATABASE_URL: t.url, JOB_LEASE_MS: "10000" };
    const r = schema.campaignRecipients;
    const sentCount = async () =>
      Number(
        (
          await db
            .select({ n: count() })
            .from(r)
            .where(and(eq(r.campaignId, saved.id), eq(r.state, "sent")))
        )[0].n,
      );
    const t0 = Date.now();
    node = await startNode(env, 180_000);
    await within(600_000, async () => (await sentCount()) >= N / 3 && twilio.sent.length > 0);
    node.proc.kill("SIGKILL");
    await node.exited;
    const killedAfter = Date.now() - t0;
    const atKill = { recipients: await sentCount(), provider: twilio.sent.length };
    // sends cut between the provider's answer and their record: the only ones that may go twice
    const cut = await db
      .select({ to: schema.tickets.contactPhone })
      .from(schema.messages)
      .innerJoin(schema.tickets, eq(schema.tickets.id, schema.messages.ticketId))
      .where(and(eq(schema.tickets.campaignId, saved.id), eq(schema.messages.deliveryState, "sending")));
    expect(atKill.recipients).toBeLessThan(N);

    const t1 = Date.now();
    node = await startNode(env, 180_000);
    await within(1_800_000, async () => {
      const [c] = await db.select({ state: schema.campaigns.state }).from(schema.campaigns).where(eq(schema.campaigns.id, saved.id));
      const unsent = await db
        .select({ n: count() })
        .from(schema.messages)
        .innerJoin(schema.tickets, eq(schema.tickets.id, schema.messages.ticketId))
        .where(and(eq(schema.tickets.campaignId, saved.id), sql`${schema.messages.deliveryState} not in ('sent', 'delivered', 'read')`));
      return c.state === "done" && Number(unsent[0].n) === 0;
    });
    const resumedIn = Date.now() - t1;
    node.proc.kill("SIGTERM");
    expect(await node.exited).toBe(0);
    node = undefined;

    // the database: one sent recipient, one conversation and one message per contact
    const recipients = await db.select().from(r).where(eq(r.campaignId, saved.id));
    expect(recipients).toHaveLength(N);
    expect(recipients.every((x) => x.state === "sent" && x.ticketId && x.messageId)).toBe(true);
    const tickets = await db
      .select({ id: schema.tickets.id, phone: schema.tickets.contactPhone })
      .from(schema.tickets)
      .where(eq(schema.tickets.campaignId, saved.id));
    expect(tickets).toHaveLength(N);
    expect(new Set(tickets.map((x) => x.phone)).size).toBe(N);
    const messages = await db
      .select({ ticketId: schema.messages.ticketId })
      .from(schema.messages)
      .innerJoin(schema.tickets, eq(schema.tickets.id, schema.messages.ticketId))
      .where(and(eq(schema.tickets.campaignId, saved.id), isNotNull(schema.messages.ticketId)));
    expect(messages).toHaveLength(N);
    expect(
      (
        await db
          .select({ id: r.id })
          .from(r)
          .where(
            and(
              eq(r.campaignId, saved.id),
              inArray(
                r.ticketId,
                tickets.map((x) => x.id),
              ),
            ),
          )
      ).length,
    ).toBe(N);

    // the provider: every contact's phone got the message; a second one only for a send cut at the kill
    const perPhone = new Map<string, number>();
    for (const s of twilio.sent) perPhone.set(s.to, (perPhone.get(s.to) ?? 0) + 1);
    const twice = [...perPhone].filter(([, n]) => n > 1).map(([to]) => to);
    const cutPhones = new Set(cut.map((x) => x.to));
    console.log(
      `[chaos ${dialect}] campaign to ${N.toLocaleString()}: SIGKILL after ${(killedAfter / 1000).toFixed(1)} s with ${atKill.recipients.toLocaleString()} recipients taken and ` +
        `${atKill.provider.toLocaleString()} SMS at the provider (${cut.length} sends cut mid-call); restarted, done ${(resumedIn / 1000).toFixed(1)} s later; ` +
        `${twilio.sent.length.toLocaleString()} SMS to ${perPhone.size.toLocaleString()} phones, ${twice.length} phones twice (${twice.filter((p) => cutPhones.has(p)).length} of them cut mid-call)`,
    );
    for (let i = 0; i < N; i++) expect(perPhone.get(phoneOf(i)) ?? 0, phoneOf(i)).toBeGreaterThanOrEqual(1);
    expect(perPhone.size).toBe(N);
    for (const to of twice) expect(cutPhones.has(to), `${to} sent twice although its send was not cut`).toBe(true);
    expect(twilio.sent.find((s) => s.to === phoneOf(7))!.body).toBe("Hi Kill Test 7, your offer.");
  }, 3_600_000);
});
