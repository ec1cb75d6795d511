// Live chat visits on both dialects: registration, the queue, one winner per accept, the
// visitor's messages, ending, rating once, conversion, merging and access.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createCookie } from "@remix-run/node";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import * as livechat from "@plugins/livechat/livechat.server";
import { AccessDenied, canRead } from "~/conversation/access.server";
import { eventsAfter, latestEventId } from "~/conversation/sync.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { rateVisit, registerVisitor, sendVisitorMessage } from "@plugins/livechat/visitor.server";
import { hashVisitorKey } from "@plugins/livechat/visitor-key.server";
import { loader as startLoader } from "@plugins/livechat/routes/start";
import { action as registerAction } from "@plugins/livechat/routes/register";

const NOW = Date.UTC(2026, 10, 21, 12);
const person = (n: string) => ({ name: `Visitor ${n}`, phone: "123", email: `${n}@example.com`, message: `Hello from ${n}` });

describe.each(DIALECTS)("live chat on %s", (dialect) => {
  let t: TestDb;
  let admin: UserRow, agent: UserRow, agent2: UserRow;
  const visit = async () => (await livechat.findVisit((await livechat.startVisit("demo"))!))!;
  const reload = async (v: livechat.Visit) => (await livechat.findVisit(v.token))!;
  /** A visitor registers; `key` stands for their browser's own key (its hash), one per visitor unless given. */
  const queued = async (n: string, key = `key-${n}`) => {
    const v = await visit();
    await livechat.register(v, person(n), true, key);
    return reload(v);
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0, now: NOW });
    [admin, agent, agent2] = await Promise.all(["admin", "agent", "agent2"].map(async (u) => (await findUserByUsername(u))!));
  });
  afterAll(async () => t?.cleanup());

  it("starts visits only from a valid widget key, with tokens that are never ticket numbers", async () => {
    expect(await livechat.startVisit("no-such-key")).toBeUndefined();
    const token = (await livechat.startVisit("demo"))!;
    expect(livechat.isVisitToken(token)).toBe(true);
    expect(livechat.isVisitToken("123456")).toBe(false);
    expect(await livechat.findVisit("123456")).toBeUndefined();
    const v = (await livechat.findVisit(token))!;
    expect(v.state).toBe("new");
    expect(livechat.infoResult(v, true)).toBe("success");
    expect(livechat.infoResult(v, false)).toBe("noAgent");
  });

  it("queues online registrations in order and leaves offline ones as messages", async () => {
    const first = await queued("q1");
    const second = await queued("q2");
    expect(first.state).toBe("queued");
    expect(first.ticket).toMatchObject({ kind: "livechat", channel: "LIVECHAT", departmentId: 2, contactName: "Visitor q1" });
    const before = await livechat.queueNumber(first);
    expect(await livechat.queueNumber(second)).toBe(before + 1);

    const offline = await visit();
    await livechat.register(offline, { name: "", phone: "", email: "", message: "Call me" }, false, "key-offline");
    expect((await reload(offline)).state).toBe("sent");
    expect(livechat.infoResult(await reload(offline), false)).toBe("closed");
    // the same form twice opens one chat
    await expect(livechat.register(await reload(first), person("q1"), true, "key-q1")).rejects.toBeInstanceOf(livechat.VisitConflict);
  });

  it("validates the form: every field when online, only the message when offline, addresses checked", async () => {
    const v = await visit();
    // the unit tests have no sockets: nobody is online, so only the message counts
    const offline = await registerVisitor(v, { name: "", phone: "", email: "", message: "" }, "10.0.0.1", "key-form");
    expect(offline).toMatchObject({ ok: false, status: 400, result: { errors: { message: "livechat.empty" } } });
    const bad = await registerVisitor(v, { name: "", phone: "", email: "nope", message: "hi" }, "10.0.0.1", "key-form");
    expect(bad).toMatchObject({ ok: false, result: { errors: { email: "conversation.badEmail" }, messageValues: { address: "nope" } } });
  });

  it("lets one address open 5 live chats in 10 minutes; refused forms do not count", async () => {
    // the limiter lives per process: the second dialect's run uses another address
    const address = `10.9.9.${dialect === "sqlite" ? 1 : 2}`;
    const offline = { name: "", phone: "", email: "", message: "Call me" };
    for (let i = 0; i < 5; i++) {
      expect(await registerVisitor(await visit(), { ...offline, message: "" }, address, "")).toMatchObject({ ok: false, status: 400 });
      expect(await registerVisitor(await visit(), offline, address, "")).toEqual({ ok: true });
    }
    expect(await registerVisitor(await visit(), offline, address, "")).toMatchObject({ ok: false, status: 429, result: { message: "livechat.tooMany" } });
  });

  it("lets one agent accept a waiting chat; the visitor then talks to them", async () => {
    const v = await queued("race");
    const ticketId = v.ticketId!;
    const results = await Promise.all([livechat.acceptLiveChat(agent, ticketId), livechat.acceptLiveChat(admin, ticketId)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const active = await reload(v);
    expect(active.state).toBe("active");

    expect(await sendVisitorMessage(active, "  ")).toMatchObject({ ok: false, status: 400, result: { errors: { message: "livechat.empty" } } });
    expect(await sendVisitorMessage(active, "x".repeat(5001))).toMatchObject({
      ok: false,
      status: 413,
      result: { errors: { message: "livechat.tooLong" }, messageValues: { max: "5000" } },
    });
    expect(await sendVisitorMessage(active, "<b>bold?</b>")).toEqual({ ok: true });
    const shown = await livechat.visitorMessages(active);
    expect(shown.map((m) => m.body)).toEqual(["Hello from race", "<b>bold?</b>"]);
    expect(shown.every((m) => m.mine)).toBe(true);
    // the system line "accepted" is for agents only
    const { db, schema } = t.handle;
    const all = await db.select().from(schema.messages).where(eq(schema.messages.ticketId, ticketId));
    expect(all.some((m) => m.type === "system")).toBe(true);
    // everyone in the chat but the visitor has it unread
    const [p] = await db.select().from(schema.participants).where(eq(schema.participants.ticketId, ticketId));
    expect(p.unread).toBe(true);
  });

  it("ends a chat once and takes one rating, with a reason under 5 stars", async () => {
    const v = await queued("rate");
    await livechat.acceptLiveChat(agent, v.ticketId!);
    expect(await rateVisit(await reload(v), { rating: "4", reason: "too early" })).toMatchObject({
      ok: false,
      status: 409,
      result: { message: "livechat.notEnded" },
    });
    expect(await livechat.endLiveChat(v.ticket!)).toBe(true);
    expect(await livechat.endLiveChat(v.ticket!)).toBe(false);
    const ended = await reload(v);
    expect(livechat.infoResult(ended, true)).toBe("rating");
    expect(await rateVisit(ended, { rating: "", reason: "" })).toMatchObject({ ok: false, result: { errors: { rating: "livechat.rateRequired" } } });
    expect(await rateVisit(ended, { rating: "3", reason: " " })).toMatchObject({ ok: false, result: { errors: { reason: "livechat.reasonRequired" } } });
    expect(await rateVisit(ended, { rating: "6", reason: "x" })).toMatchObject({ ok: false, result: { errors: { rating: "livechat.rateRequired" } } });
    expect(await rateVisit(ended, { rating: "3", reason: "Slow" })).toEqual({ ok: true });
    expect(await rateVisit(ended, { rating: "5", reason: "" })).toMatchObject({ ok: false, status: 409, result: { message: "livechat.alreadyRated" } });
    const rated = await reload(v);
    expect(rated.ticket).toMatchObject({ rating: 3, ratingReason: "Slow", status: 2 });
    expect(livechat.infoResult(rated, true)).toBe("closed");
  });

  it("takes a rating sent with a visit read before its End landed, and says 'not ended' rather than 'rated' before it", async () => {
    const v = await queued("rate-race");
    await livechat.acceptLiveChat(agent, v.ticketId!);
    const readBeforeEnd = await reload(v); // the rating's request read the visit while it still ran
    expect(await rateVisit(readBeforeEnd, { rating: "5", reason: "" })).toMatchObject({ ok: false, status: 409, result: { message: "livechat.notEnded" } });
    await livechat.endLiveChat(v.ticket!);
    expect(await rateVisit(readBeforeEnd, { rating: "5", reason: "" })).toEqual({ ok: true });
    expect(await rateVisit(readBeforeEnd, { rating: "4", reason: "x" })).toMatchObject({ result: { message: "livechat.alreadyRated" } });
  });

  it("groups a visitor's chats by their browser's own key, never by the email they type", async () => {
    const { db, schema } = t.handle;
    const sessionOf = async (v: livechat.Visit) => (await reload(v)).ticket!.sessionId!;
    const register = async (email: string, key: string, name = "Someone") => {
      const v = await visit();
      await livechat.register(v, { name, phone: "1", email, message: "hi" }, true, key);
      return v;
    };
    // two strangers typing the same address: two sessions
    const victim = await register("shared@example.com", "browser-victim");
    const other = await register("Shared@Example.com", "browser-attacker", "Attacker");
    expect(await sessionOf(other)).not.toBe(await sessionOf(victim));
    // the same browser coming back (another address, even none): the same session
    const back = await register("new@example.com", "browser-victim");
    const none = await register("", "browser-victim");
    expect(await sessionOf(back)).toBe(await sessionOf(victim));
    expect(await sessionOf(none)).toBe(await sessionOf(victim));
    // no key (no cookie could be kept): a session of its own, which nothing joins by an empty key
    const keyless1 = await register("shared@example.com", "");
    const keyless2 = await register("shared@example.com", "");
    expect(new Set([await sessionOf(keyless1), await sessionOf(keyless2), await sessionOf(victim)]).size).toBe(3);
    const [session] = await db
      .select()
      .from(schema.livechatSessions)
      .where(eq(schema.livechatSessions.id, await sessionOf(victim)));
    expect(session.visitorKey).toBe("browser-victim");
  });

  it("lets a visitor's socket listen to its chat only while it waits or runs", async () => {
    const v = await queued("listen");
    expect(livechat.liveChatOf(v)).toBe(v.ticketId);
    await livechat.acceptLiveChat(agent, v.ticketId!);
    expect(livechat.liveChatOf(await reload(v))).toBe(v.ticketId);
    await livechat.endLiveChat(v.ticket!);
    expect(livechat.liveChatOf(await reload(v))).toBeUndefined();
    expect(livechat.liveChatOf(await visit())).toBeUndefined();
  });

  it("converts a chat to a ticket", async () => {
    const v = await queued("convert");
    await livechat.acceptLiveChat(agent, v.ticketId!);
    await livechat.convertToTicket(agent, v.ticket!);
    const after = await reload(v);
    expect(after.state).toBe("converted");
    expect(after.ticket?.kind).toBe("ticket");
    expect(livechat.infoResult(after, true)).toBe("converted");
    await expect(livechat.convertToTicket(agent, v.ticket!)).rejects.toBeInstanceOf(livechat.VisitConflict);
  });

  it("groups chats by session (the same browser), merges sessions and keeps other departments out", async () => {
    const a1 = await queued("same");
    const a2 = await visit();
    await livechat.register(a2, { ...person("same"), name: "Same again" }, true, "key-same");
    const a2r = await reload(a2);
    const b = await queued("other");
    const sameSession = a2r.ticket!.sessionId;
    expect(sameSession).toBe(a1.ticket!.sessionId);
    expect(b.ticket!.sessionId).not.toBe(sameSession);

    const desk = await livechat.liveChatDesk(agent);
    expect(desk.queue.map((q) => q.id)).toEqual(expect.arrayContaining([a1.ticketId, a2r.ticketId, b.ticketId]));

    await livechat.acceptLiveChat(agent, a1.ticketId!);
    await livechat.acceptLiveChat(agent, b.ticketId!);
    const lastEvent = await latestEventId();
    await livechat.mergeSessions(agent, b.ticket!.sessionId!, sameSession!);
    // clients that were away replay the merge from the event feed
    expect((await eventsAfter(agent, lastEvent)).events).toEqual([
      expect.objectContaining({ action: "merge_session", ticketId: b.ticketId, refId: b.ticket!.sessionId, sessionId: sameSession }),
    ]);
    const merged = (await livechat.liveChatDesk(agent)).sessions.find((s) => s.id === sameSession)!;
    expect(merged.chats.map((c) => c.id)).toEqual(expect.arrayContaining([a1.ticketId, b.ticketId]));
    // newest first within the session
    expect([...merged.chats].sort((x, y) => y.updatedAt - x.updatedAt).map((c) => c.id)).toEqual(merged.chats.map((c) => c.id));

    // an agent outside the live chat department cannot read or accept it
    const { db, schema } = t.handle;
    await db.update(schema.users).set({ departmentId: 1 }).where(eq(schema.users.id, agent2.id));
    const outsider = (await findUserByUsername("agent2"))!;
    const waiting = await queued("outsider");
    expect(await canRead(outsider, waiting.ticketId!)).toBe(false);
    await expect(livechat.acceptLiveChat(outsider, waiting.ticketId!)).rejects.toThrow("You cannot read this conversation.");
    expect((await livechat.liveChatDesk(outsider)).queue).toHaveLength(0);
  });

  it("refuses to merge sessions holding a chat the agent may not read, on either side", async () => {
    const { db, schema } = t.handle;
    const mine = await queued("merge-mine");
    const theirs = await queued("merge-theirs");
    // the same visitor (email) again, in a chat of another department the agent does not take part in
    const hidden = await visit();
    await livechat.register(hidden, person("merge-theirs"), true, "key-merge-theirs");
    const hiddenChat = (await reload(hidden)).ticket!;
    expect(hiddenChat.sessionId).toBe(theirs.ticket!.sessionId);
    await db.update(schema.tickets).set({ departmentId: 1 }).where(eq(schema.tickets.id, hiddenChat.id));
    expect(await canRead(agent, theirs.ticketId!)).toBe(true);
    expect(await canRead(agent, hiddenChat.id)).toBe(false);

    const sessionOf = async (id: number) => (await db.select({ s: schema.tickets.sessionId }).from(schema.tickets).where(eq(schema.tickets.id, id)))[0].s;
    for (const [from, into] of [
      [theirs.ticket!.sessionId!, mine.ticket!.sessionId!],
      [mine.ticket!.sessionId!, theirs.ticket!.sessionId!],
    ])
      await expect(livechat.mergeSessions(agent, from, into), `${from} -> ${into}`).rejects.toBeInstanceOf(AccessDenied);
    // nothing moved, and the page does not offer the merge
    expect((await livechat.mergeTargets(agent, mine.ticket!.sessionId!)).map((x) => x.id)).not.toContain(theirs.ticket!.sessionId);
    expect((await livechat.mergeTargets(admin, mine.ticket!.sessionId!)).map((x) => x.id)).toContain(theirs.ticket!.sessionId);
    expect(await sessionOf(hiddenChat.id)).toBe(theirs.ticket!.sessionId);
    expect(await sessionOf(theirs.ticketId!)).toBe(theirs.ticket!.sessionId);
    expect(await sessionOf(mine.ticketId!)).toBe(mine.ticket!.sessionId);

    // an admin reads everything, so may merge them
    await livechat.mergeSessions(admin, theirs.ticket!.sessionId!, mine.ticket!.sessionId!);
    expect(await sessionOf(hiddenChat.id)).toBe(mine.ticket!.sessionId);
  });

  it("removes a chat (admins or its assignee) and its visit with it", async () => {
    const v = await queued("remove");
    await livechat.acceptLiveChat(agent, v.ticketId!);
    const other = (await findUserByUsername("agent2"))!;
    await expect(livechat.removeLiveChat(other, v.ticket!)).rejects.toThrow();
    await livechat.removeLiveChat(admin, v.ticket!);
    expect(await livechat.findVisit(v.token)).toBeUndefined();
  });
});

describe("the visitor's key on the public pages", () => {
  let t: TestDb;
  const context = { cspNonce: "", clientIp: "10.7.7.7" };
  beforeAll(async () => {
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 0, now: NOW });
  });
  afterAll(async () => t?.cleanup());

  /** Opens the widget link and registers; answers the cookie the browser holds afterwards and the chat's session. */
  async function chat(email: string, cookie?: string) {
    const headers: Record<string, string> = cookie ? { Cookie: cookie } : {};
    const started = (await startLoader({
      request: new Request("http://localhost/start/livechat/demo", { headers }),
      params: { token: "demo" },
      context,
    })) as Response;
    expect(started.status).toBe(302);
    const token = started.headers.get("Location")!.split("/").at(-1)!;
    const given = started.headers.get("Set-Cookie");
    const held = given ? given.split(";")[0] : cookie!;
    const body = new URLSearchParams({ _token: livechat.visitCsrf(token), name: "V", phone: "1", email, message: "hi" });
    const request = new Request(`http://localhost/register/livechat/${token}`, {
      method: "POST",
      body,
      headers: { Cookie: held, "Content-Type": "application/x-www-form-urlencoded" },
    });
    const registered = (await registerAction({ request, params: { token }, context })) as Response;
    expect(registered.status).toBe(302);
    const v = (await livechat.findVisit(token))!;
    return { given, held, sessionId: v.ticket!.sessionId! };
  }

  it("gives a new browser a long-lived httpOnly key and groups its chats by it, not by the email", async () => {
    const first = await chat("same@example.com");
    expect(first.given).toMatch(/^lc_visitor=[A-Za-z0-9_%-]+; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax$/);
    const again = await chat("other@example.com", first.held);
    expect(again.given).toBeNull();
    expect(again.sessionId).toBe(first.sessionId);
    const stranger = await chat("same@example.com");
    expect(stranger.given).not.toBeNull();
    expect(stranger.sessionId).not.toBe(first.sessionId);
    const { db, schema } = t.handle;
    const [session] = await db.select().from(schema.livechatSessions).where(eq(schema.livechatSessions.id, first.sessionId));
    // the database keeps the key's hash, never the key
    const key = await createCookie("lc_visitor").parse(first.held);
    expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(session.visitorKey).toBe(hashVisitorKey(key));
  });
});
