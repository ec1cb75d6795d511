// Cases on both dialects: a case made (numbered from 1001, its history begun), refusals that keep
// what was typed, tickets attached by number (one in another case refused, naming that case; one
// the agent may not read refused like no ticket), detached, a status change told in every ticket's
// conversation and kept in the case's history, the agent's view leaving out the tickets they may not
// read (but counting them), notes, case types for admins only, the page's action and the JSON twins
// with their `_token`, and the hide_case flag closing both.
import type { ActionFunctionArgs, AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, asc, eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { setSetting } from "~/models/settings.server";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { insertTicket } from "~/conversation/model.server";
import { addCaseNote, attachTicket, caseDetail, createCase, detachTicket, listCases, saveCaseType, updateCase } from "@plugins/case/case.server";
import { action as detailAction, loader as detailLoader } from "@plugins/case/routes/case.detail";
import { action as newAction } from "@plugins/case/routes/case.new";
import { loader as apiList } from "@plugins/case/routes/api.case.list";
import { loader as apiCase } from "@plugins/case/routes/api.case";

async function call<T extends ActionFunctionArgs | LoaderFunctionArgs>(fn: (args: T) => unknown, request: Request, params: Record<string, string> = {}) {
  try {
    const context = { clientIp: "192.0.2.10" } as unknown as AppLoadContext;
    return (await fn({ request, context, params } as T)) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}
const post = (url: string, cookie: string, fields: Record<string, string>) =>
  new Request(`http://localhost${url}`, {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie },
  });

const TZ = "Asia/Kuala_Lumpur";
const blank = { title: "", case_type: "", status: "", owner: "", due_date: "" };

describe.each(DIALECTS)("cases (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let agentCookie: string;
  let agentToken: string;
  // tickets: two of the agent's department, one of another department the agent may not read
  let mine1: { id: number; ticketNumber: number };
  let mine2: { id: number; ticketNumber: number };
  let other: { id: number; ticketNumber: number };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    agentToken = (await createSession(agent.id)).token;
    agentCookie = await sessionCookie().serialize(agentToken);
    const ticket = (title: string, channel: string, departmentId: number) =>
      t.handle.transaction((tx) =>
        insertTicket(tx, { title, channel, departmentId, contactName: "Mei", contactEmail: "mei@example.com", contactPhone: "" }, title, Date.now()),
      );
    mine1 = await ticket("Parcel late", "EMAIL", agent.departmentId!);
    mine2 = await ticket("Where is my parcel?", "WHATSAPP", agent.departmentId!);
    other = await ticket("Refund for parcel", "EMAIL", agent.departmentId === 1 ? 3 : 1);
  }, 60_000);
  afterAll(async () => t?.cleanup());

  const actorOf = (u: UserRow) => ({ id: u.id, type: u.type, departmentId: u.departmentId, name: u.name, username: u.username });
  const systemTexts = async (ticketId: number) => {
    const m = t.handle.schema.messages;
    const rows = await t.handle.db
      .select({ body: m.body })
      .from(m)
      .where(and(eq(m.ticketId, ticketId), eq(m.type, "system")))
      .orderBy(asc(m.id));
    return rows.map((r) => JSON.parse(r.body));
  };

  it("creates a case, numbered from 1001, open, with its history begun; a refusal keeps what was typed", async () => {
    const refused = await createCase(actorOf(agent), { ...blank, title: "  ", due_date: "2026-02-30", owner: String(agent.id) });
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.result.errors).toEqual({ title: "plugin_case.errors.titleRequired", due_date: "plugin_case.errors.dueDate" });
    expect(refused.result.values.owner).toBe(String(agent.id));

    const made = await createCase(actorOf(agent), { ...blank, title: "Lost parcel of Mei", owner: String(agent.id), due_date: "2020-01-31" });
    expect(made).toEqual({ ok: true, number: 1001 });
    const second = await createCase(actorOf(agent), { ...blank, title: "Another" });
    expect(second).toEqual({ ok: true, number: 1002 });
    const detail = (await caseDetail(agent, 1001, TZ))!;
    expect(detail).toMatchObject({
      title: "Lost parcel of Mei",
      status: "open",
      owner: agent.name,
      dueDate: "2020-01-31",
      overdue: true,
      createdBy: agent.name,
    });
    expect(detail.history.map((h) => h.action)).toEqual(["created"]);
  });

  it("attaches tickets by number; one in another case is refused naming it, one the agent may not read like no ticket", async () => {
    expect(await attachTicket(actorOf(agent), 1001, String(mine1.ticketNumber))).toEqual({ ok: true, ticketNumber: mine1.ticketNumber });
    expect(await attachTicket(actorOf(agent), 1001, `#${mine2.ticketNumber}`)).toEqual({ ok: true, ticketNumber: mine2.ticketNumber });

    const elsewhere = await attachTicket(actorOf(agent), 1002, String(mine1.ticketNumber));
    expect(elsewhere.ok).toBe(false);
    if (!elsewhere.ok) {
      expect(elsewhere.status).toBe(409);
      expect(elsewhere.result.errors.ticket).toBe("plugin_case.errors.inOtherCase");
      expect(elsewhere.result.messageValues).toMatchObject({ ticket: String(mine1.ticketNumber), case: "1001" });
      expect(elsewhere.result.values.ticket).toBe(String(mine1.ticketNumber));
    }
    const again = await attachTicket(actorOf(agent), 1001, String(mine1.ticketNumber));
    expect(!again.ok && again.result.errors.ticket).toBe("plugin_case.errors.alreadyHere");

    const hidden = await attachTicket(actorOf(agent), 1001, String(other.ticketNumber));
    expect(!hidden.ok && hidden.result.errors.ticket).toBe("plugin_case.errors.noTicket");
    const missing = await attachTicket(actorOf(agent), 1001, "999999");
    expect(!missing.ok && missing.result.errors.ticket).toBe("plugin_case.errors.noTicket");

    // the conversation says it
    expect(await systemTexts(mine1.id)).toEqual([
      { event: "plugin", by: agent.name, text: "plugin_case.system.attached", values: { number: "1001", title: "Lost parcel of Mei" } },
    ]);
  });

  it("shows an agent only the tickets they may read, counting the others; an admin sees all", async () => {
    expect(await attachTicket(actorOf(admin), 1001, String(other.ticketNumber))).toMatchObject({ ok: true });
    const seen = (await caseDetail(agent, 1001, TZ))!;
    expect(seen.tickets.map((x) => x.number)).toEqual([mine1.ticketNumber, mine2.ticketNumber]);
    expect(seen.tickets[0]).toMatchObject({ title: "Parcel late", channel: "EMAIL", status: 0 });
    expect(seen.ticketCount).toBe(3);
    expect(seen.hiddenTickets).toBe(1);
    const all = (await caseDetail(admin, 1001, TZ))!;
    expect(all.tickets.map((x) => x.number)).toContain(other.ticketNumber);
    expect(all.hiddenTickets).toBe(0);
    // the history names that ticket to the admin, and to the agent only as one they cannot open
    const attachedBy = (d: typeof seen) => d.history.filter((h) => h.action.startsWith("attached")).map((h) => [h.action, h.detail]);
    expect(attachedBy(seen)).toContainEqual(["attachedHidden", ""]);
    expect(attachedBy(seen).flat()).not.toContain(String(other.ticketNumber));
    expect(attachedBy(all)).toContainEqual(["attached", String(other.ticketNumber)]);
    // an agent cannot take out a ticket they may not read
    const denied = await detachTicket(actorOf(agent), 1001, other.id);
    expect(denied.ok).toBe(false);
  });

  it("tells a status change in every ticket of the case and keeps it in the history", async () => {
    const changed = await updateCase(actorOf(agent), 1001, {
      title: "Lost parcel of Mei",
      case_type: "",
      status: "in_progress",
      owner: String(agent.id),
      due_date: "2020-01-31",
    });
    expect(changed).toEqual({ ok: true, changed: ["status"] });
    for (const id of [mine1.id, mine2.id, other.id])
      expect((await systemTexts(id)).at(-1)).toEqual({
        event: "plugin",
        by: agent.name,
        text: "plugin_case.system.status",
        values: { number: "1001", status: "t:plugin_case.status.in_progress" },
      });
    // resolved: no longer overdue
    await updateCase(actorOf(agent), 1001, { title: "Lost parcel of Mei", case_type: "", status: "resolved", owner: String(agent.id), due_date: "2020-01-31" });
    const detail = (await caseDetail(agent, 1001, TZ))!;
    expect(detail.overdue).toBe(false);
    expect(detail.history.filter((h) => h.action === "status").map((h) => h.detail)).toEqual(["resolved", "in_progress"]);
    const bad = await updateCase(actorOf(agent), 1001, { ...blank, title: "X", status: "done" });
    expect(!bad.ok && bad.result.errors.status).toBe("plugin_case.errors.status");

    // a form read before someone else's save cannot undo it: refused with the typed values kept
    const read = (await caseDetail(agent, 1001, TZ))!.updatedAt;
    const form = { title: "Lost parcel of Mei", case_type: "", status: "open", owner: String(agent.id), due_date: "2020-01-31" };
    expect(await updateCase(actorOf(admin), 1001, { ...form, status: "closed" }, read)).toMatchObject({ ok: true });
    const stale = await updateCase(actorOf(agent), 1001, form, read);
    expect(stale).toMatchObject({ ok: false, status: 409 });
    expect(!stale.ok && [stale.result.message, stale.result.values.status]).toEqual(["plugin_case.errors.changedMeanwhile", "open"]);
    expect((await caseDetail(agent, 1001, TZ))!.status).toBe("closed");
    // saved again from the page as it now is
    const now = (await caseDetail(agent, 1001, TZ))!.updatedAt;
    expect(await updateCase(actorOf(agent), 1001, { ...form, status: "resolved" }, now)).toMatchObject({ ok: true });
  });

  it("detaches a ticket (told in its conversation, kept in the history): it may then join another case", async () => {
    expect(await detachTicket(actorOf(agent), 1001, mine1.id)).toEqual({ ok: true, ticketNumber: mine1.ticketNumber });
    expect((await systemTexts(mine1.id)).at(-1)).toMatchObject({ text: "plugin_case.system.detached", values: { number: "1001" } });
    const detail = (await caseDetail(agent, 1001, TZ))!;
    expect(detail.tickets.map((x) => x.number)).toEqual([mine2.ticketNumber]);
    expect(detail.history[0]).toMatchObject({ action: "detached", detail: String(mine1.ticketNumber), by: agent.name });
    expect(await attachTicket(actorOf(agent), 1002, String(mine1.ticketNumber))).toMatchObject({ ok: true });
    // two detaches at once (two tabs): the ticket leaves once, logged and told once
    await Promise.all([detachTicket(actorOf(agent), 1002, mine1.id), detachTicket(actorOf(admin), 1002, mine1.id)]);
    const second = (await caseDetail(admin, 1002, TZ))!;
    expect(second.history.filter((h) => h.action === "detached")).toHaveLength(1);
    expect((await systemTexts(mine1.id)).filter((m) => m.text === "plugin_case.system.detached")).toHaveLength(2);
    expect(await attachTicket(actorOf(agent), 1002, String(mine1.ticketNumber))).toMatchObject({ ok: true });
  });

  it("keeps notes, newest first", async () => {
    expect(await addCaseNote(actorOf(agent), 1001, "Courier called")).toMatchObject({ ok: true });
    expect(await addCaseNote(actorOf(agent), 1001, "Customer refunded")).toMatchObject({ ok: true });
    const empty = await addCaseNote(actorOf(agent), 1001, "   ");
    expect(!empty.ok && empty.result.errors.body).toBe("plugin_case.errors.noteRequired");
    expect((await caseDetail(agent, 1001, TZ))!.notes.map((n) => [n.body, n.by])).toEqual([
      ["Customer refunded", agent.name],
      ["Courier called", agent.name],
    ]);
  });

  it("lets admins manage case types (unique names); agents choose among the active ones", async () => {
    expect((await saveCaseType(agent, { id: "", name: "Delivery", active: "1" })).ok).toBe(false);
    const made = await saveCaseType(admin, { id: "", name: "Delivery", active: "1" });
    expect(made.ok).toBe(true);
    const twin = await saveCaseType(admin, { id: "", name: "delivery", active: "1" });
    expect(!twin.ok && twin.result.errors.name).toBe("plugin_case.errors.typeTaken");
    // non-ASCII names compare the same on both dialects: case in every script, and Unicode forms (NFKC)
    const accented = await saveCaseType(admin, { id: "", name: "Éléctricité", active: "1" });
    expect(accented.ok).toBe(true);
    for (const name of ["éLÉCTRICITÉ", "E\u0301le\u0301ctricite\u0301", "  ÉLÉCTRICITÉ "]) {
      const clash = await saveCaseType(admin, { id: "", name, active: "1" });
      expect(!clash.ok && clash.result.errors.name, name).toBe("plugin_case.errors.typeTaken");
    }
    expect((await saveCaseType(admin, { id: "", name: "ＤＥＬＩＶＥＲＹ", active: "1" })).ok).toBe(false);
    expect((await saveCaseType(admin, { id: "", name: "Ремонт", active: "1" })).ok).toBe(true);
    expect((await saveCaseType(admin, { id: "", name: "РЕМОНТ", active: "1" })).ok).toBe(false);
    // renaming a type to its own name in another case is no clash
    expect((await saveCaseType(admin, { id: String(accented.ok ? accented.id : 0), name: "ÉLÉCTRICITÉ", active: "1" })).ok).toBe(true);
    const typeId = made.ok ? made.id : 0;
    const retired = await saveCaseType(admin, { id: "", name: "Old", active: "" });
    const set = await updateCase(actorOf(agent), 1002, { ...blank, title: "Another", case_type: String(typeId), status: "open" });
    expect(set).toMatchObject({ ok: true, changed: ["caseTypeId"] });
    const notOffered = await updateCase(actorOf(agent), 1002, { ...blank, title: "Another", case_type: String(retired.ok ? retired.id : 0), status: "open" });
    expect(!notOffered.ok && notOffered.result.errors.case_type).toBe("plugin_case.errors.type");
    const list = await listCases({ status: "", type: typeId, page: 1 }, TZ);
    expect(list.cases.map((c) => [c.number, c.type, c.tickets])).toEqual([[1002, "Delivery", 1]]);
    expect((await listCases({ status: "resolved", page: 1 }, TZ)).cases.map((c) => c.number)).toEqual([1001]);
  });

  it("serves the page's forms: a refused attach keeps the typed number and says why", async () => {
    const refused = await call(detailAction, post("/case/1001", agentCookie, { intent: "attach", ticket: String(mine1.ticketNumber) }), { number: "1001" });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      intent: "attach",
      errors: { ticket: "plugin_case.errors.inOtherCase" },
      values: { ticket: String(mine1.ticketNumber) },
    });
    const created = await call(newAction, post("/case/new", agentCookie, { title: "From the page", case_type: "", owner: "", due_date: "" }));
    expect(created.status).toBe(302);
    expect(created.headers.get("Location")).toBe("/case/1003");
    const page = await call(detailLoader, new Request("http://localhost/case/1001", { headers: { Cookie: agentCookie } }), { number: "1001" });
    const data = await page.json();
    expect(data.detail.tickets.map((x: { number: number }) => x.number)).toEqual([mine2.ticketNumber]);
    expect(data.detail.hiddenTickets).toBe(1);
  });

  it("answers the JSON twins with a _token, as far as the caller may read; hide_case closes pages and twins", async () => {
    const list = await call(apiList, new Request(`http://localhost/api/case/list?status=resolved&_token=${agentToken}`));
    expect(list.status).toBe(200);
    expect((await list.json()).data.cases.map((c: { number: number }) => c.number)).toEqual([1001]);
    const one = await call(apiCase, new Request(`http://localhost/api/case/1001?_token=${agentToken}`), { number: "1001" });
    const body = await one.json();
    expect(body.result).toBe("success");
    expect(body.data.tickets.map((x: { number: number }) => x.number)).toEqual([mine2.ticketNumber]);
    expect(body.data.hiddenTickets).toBe(1);
    expect((await call(apiCase, new Request(`http://localhost/api/case/4242?_token=${agentToken}`), { number: "4242" })).status).toBe(404);
    expect((await call(apiList, new Request("http://localhost/api/case/list"))).status).toBe(403);
    // a trial workspace has no cases: its tokens get 403 too
    await setSetting("account_type", "0");
    try {
      expect((await call(apiList, new Request(`http://localhost/api/case/list?_token=${agentToken}`))).status).toBe(403);
    } finally {
      await setSetting("account_type", "1");
    }

    await t.handle.db
      .update(t.handle.schema.users)
      .set({ permissions: JSON.stringify(["hide_case"]) })
      .where(eq(t.handle.schema.users.id, agent.id));
    try {
      expect((await call(apiList, new Request(`http://localhost/api/case/list?_token=${agentToken}`))).status).toBe(403);
      const page = await call(detailLoader, new Request("http://localhost/case/1001", { headers: { Cookie: agentCookie } }), { number: "1001" });
      expect(page.status).toBe(302);
    } finally {
      await t.handle.db.update(t.handle.schema.users).set({ permissions: "[]" }).where(eq(t.handle.schema.users.id, agent.id));
    }
  });
});
