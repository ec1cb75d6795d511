// What an admin changes outside the accounts pages lands in the audit log: plugins switched on or
// off and edition hosts, workspace settings (the announcement, billing details), and exports.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { desc, gt } from "drizzle-orm";
import { createTestDb, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { listEditions } from "~/models/editions.server";
import { action as editionsAction } from "~/routes/admin.editions";
import { action as announcementAction } from "~/routes/admin.announcement";
import { action as billingAction } from "@plugins/payment/routes/billing";
import { loader as exportLoader } from "@plugins/reports/routes/export";

const context = { cspNonce: "", clientIp: "203.0.113.7" };
let t: TestDb;
let admin: UserRow;
let adminCookie: string;
let lastId = 0;

/** The entries written since the last call, oldest first. */
async function written() {
  const { db, schema } = t.handle;
  const rows = await db.select().from(schema.auditLog).where(gt(schema.auditLog.id, lastId)).orderBy(desc(schema.auditLog.id));
  if (rows.length) lastId = rows[0].id;
  return rows.reverse().map((r) => ({ action: r.action, actorId: r.actorId, target: `${r.targetType}:${r.targetId}`, detail: JSON.parse(r.detail), ip: r.ip }));
}

const post = (path: string, fields: Record<string, string | string[]>, cookie = adminCookie) => {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  return new Request(`http://localhost${path}`, { method: "POST", body, headers: { Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" } });
};
const settle = async (run: () => Promise<unknown>) => {
  try {
    return (await run()) as Response;
  } catch (thrown) {
    return thrown as Response;
  }
};

beforeAll(async () => {
  t = await createTestDb("sqlite");
  await seedDemo(t.handle, { tickets: 5 });
  admin = (await findUserByUsername("admin"))!;
  adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
  await written();
});
afterAll(async () => t?.cleanup());

describe("audited changes", () => {
  it("records each plugin switched on or off, and changed hosts, once per change", async () => {
    const before = (await listEditions()).find((e) => e.id === "support")!;
    const enabled = [...before.enabled.filter((p) => p !== "kanban"), "kb"].filter((p, i, all) => all.indexOf(p) === i);
    const response = await editionsAction({
      request: post("/admin/editions", { edition: "support", hosts: "help.example.com", plugins: enabled }),
      params: {},
      context,
    });
    expect(response.status).toBe(302);
    const entries = await written();
    const expected = [
      ...(before.enabled.includes("kanban") ? [{ plugin: "kanban", enabled: false }] : []),
      ...(before.enabled.includes("kb") ? [] : [{ plugin: "kb", enabled: true }]),
    ];
    expect(entries.filter((e) => e.action === "plugin.toggled").map((e) => ({ plugin: e.target.split(":")[1], enabled: e.detail.enabled }))).toEqual(
      expect.arrayContaining(expected),
    );
    expect(entries.filter((e) => e.action === "plugin.toggled")).toHaveLength(expected.length);
    expect(entries.find((e) => e.action === "edition.changed")).toMatchObject({
      actorId: admin.id,
      target: "edition:support",
      ip: "203.0.113.7",
      detail: { hosts: { from: before.hosts, to: ["help.example.com"] } },
    });
    // the same form again changes nothing, and records nothing
    await editionsAction({ request: post("/admin/editions", { edition: "support", hosts: "help.example.com", plugins: enabled }), params: {}, context });
    expect(await written()).toEqual([]);
  });

  it("refuses an agent (403) and records nothing", async () => {
    const agent = (await findUserByUsername("agent"))!;
    const cookie = await sessionCookie().serialize((await createSession(agent.id)).token);
    const response = await settle(() =>
      editionsAction({ request: post("/admin/editions", { edition: "support", hosts: "", plugins: [] }, cookie), params: {}, context }),
    );
    expect(response.status).toBe(403);
    expect(await written()).toEqual([]);
  });

  it("records the announcement and the billing details as settings changes", async () => {
    await announcementAction({ request: post("/admin/announcement", { intent: "publish", text: "Maintenance at 10 pm" }), params: {}, context });
    await billingAction({ request: post("/settings/billing", { billing_name: "Acme Sdn Bhd", billing_email: "billing@acme.example" }), params: {}, context });
    // unchanged billing details: nothing new
    await billingAction({ request: post("/settings/billing", { billing_name: "Acme Sdn Bhd", billing_email: "billing@acme.example" }), params: {}, context });
    expect(await written()).toEqual([
      { action: "settings.changed", actorId: admin.id, target: "settings:announcement", detail: { announcement: "Maintenance at 10 pm" }, ip: "203.0.113.7" },
      {
        action: "settings.changed",
        actorId: admin.id,
        target: "settings:billing",
        detail: { billing_name: { from: expect.any(String), to: "Acme Sdn Bhd" }, billing_email: { from: expect.any(String), to: "billing@acme.example" } },
        ip: "203.0.113.7",
      },
    ]);
  });

  it("records a CSV export with its filters, and not a refused one", async () => {
    const token = (await createSession(admin.id)).token;
    const today = new Date().toISOString().slice(0, 10);
    const request = (query: string) => new Request(`http://localhost/report/export?${query}`);
    const csv = await exportLoader({
      request: request(`token=${token}&startDate=${today}&endDate=${today}&step=day&dashboard=omnichannel`),
      params: {},
      context,
    });
    expect(csv.status).toBe(200);
    await csv.text();
    expect(await written()).toEqual([
      {
        action: "export.csv",
        actorId: admin.id,
        target: "report:omnichannel",
        detail: { dashboard: "omnichannel", startDate: today, endDate: today, step: "day" },
        ip: "203.0.113.7",
      },
    ]);
    const widget = await exportLoader({ request: request(`token=${token}&startDate=${today}&endDate=${today}&step=day&widget=status`), params: {}, context });
    expect(widget.status).toBe(200);
    expect((await written())[0].detail).toMatchObject({ widget: "status" });
    const bad = await exportLoader({ request: request(`token=${token}&startDate=nope&endDate=${today}`), params: {}, context });
    expect(bad.status).toBe(400);
    const stranger = await settle(() => exportLoader({ request: request(`token=not-a-session&startDate=${today}&endDate=${today}`), params: {}, context }));
    expect(stranger.status).toBe(403);
    expect(await written()).toEqual([]);
  });
});
