// Reports on both dialects: chart data, the summary report and CSV rows checked against counts
// computed straight from tickets, messages and labels of the seeded data (not from report_facts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { refreshFacts } from "@plugins/reports/facts.server";
import {
  channelGroup,
  DASHBOARDS,
  DAY,
  DURATION_BUCKETS,
  exportRows,
  EXPORT_HEADER,
  parseRange,
  summary,
  type DateRange,
} from "@plugins/reports/reports.server";
import type { UserRow } from "~/accounts/users.server";
import { csvLine, dashboardData, renderDashboard, renderSvg } from "@plugins/reports/widgets.server";

const NOW = Date.UTC(2026, 10, 21, 12);
const TZ = "Asia/Kuala_Lumpur";
const ALL_PLUGINS = ["tickets", "reports"];

describe("report date ranges", () => {
  it("takes DD-MM-YYYY and YYYY-MM-DD, as whole days in the workspace zone", () => {
    const a = parseRange("01-11-2026", "21-11-2026", NOW, TZ);
    const b = parseRange("2026-11-01", "2026-11-21", NOW, TZ);
    expect(a).toEqual(b);
    expect(a.ok && a.range).toMatchObject({ start: "2026-11-01", end: "2026-11-21", from: Date.UTC(2026, 9, 31, 16), to: Date.UTC(2026, 10, 21, 16) });
  });

  it("refuses malformed dates, a range ending in the future and a start after the end", () => {
    for (const [s, e] of [
      ["", "21-11-2026"],
      ["31-02-2026", "21-11-2026"],
      ["2026/11/01", "21-11-2026"],
      ["1-11-2026", "21-11-2026"],
      ["01-11-2026", "tomorrow"],
    ])
      expect(parseRange(s, e, NOW, TZ), `${s}..${e}`).toEqual({ ok: false, error: "format" });
    // NOW is 20:00 on 21-11 in Kuala Lumpur: the 22nd is tomorrow there
    expect(parseRange("01-11-2026", "22-11-2026", NOW, TZ)).toEqual({ ok: false, error: "future" });
    expect(parseRange("21-11-2026", "20-11-2026", NOW, TZ)).toEqual({ ok: false, error: "order" });
    // a year at most (366 days): a range from 1970 would draw millions of intervals
    expect(parseRange("21-11-2025", "21-11-2026", NOW, TZ).ok).toBe(true);
    expect(parseRange("19-11-2025", "21-11-2026", NOW, TZ)).toEqual({ ok: false, error: "tooLong" });
    expect(parseRange("21-11-2026", "21-11-2026", NOW, TZ).ok).toBe(true);
  });
});

describe("CSV cells", () => {
  it("quotes separators and defuses formulas", () => {
    expect(csvLine([1, 'say "hi", ok', "=cmd()", null])).toBe(`1,"say ""hi"", ok",'=cmd(),\r\n`);
  });

  it("defuses a formula after leading spaces or quotes, in every cell (OWASP)", () => {
    for (const cell of ["=1+1", "+1", "-1+2", "@SUM(A1)", "\t=1", "\r=1", " =1", "   +cmd", '"=HYPERLINK(1)', "'=1", ` "' @x`, "\n-1"])
      expect(csvLine(["ok", cell]), JSON.stringify(cell)).toMatch(/^ok,"?'/);
    // quoted as CSV where the text needs it, the prefix inside the quotes
    expect(csvLine([' "=1'])).toBe(`"' ""=1"\r\n`);
    expect(csvLine(["=1,2"])).toBe(`"'=1,2"\r\n`);
    // harmless text and numbers stay as they are; negative numbers are values, not formulas
    expect(csvLine(["a=1", "x-1", " hi", "", -3, -0.5, 0])).toBe("a=1,x-1, hi,,-3,-0.5,0\r\n");
  });
});

describe.each(DIALECTS)("reports on %s", (dialect) => {
  let t: TestDb;
  let range: DateRange;
  // the seeded conversations, computed the slow way from the source tables
  let truth: {
    id: number;
    ticketNumber: number;
    kind: string;
    channel: string;
    status: number;
    departmentId: number | null;
    createdAt: number;
    updatedAt: number;
    firstResponse: number | null;
    sla: number | null;
  }[];
  let users: Map<string, UserRow>;
  let participants: { ticketId: number; userId: number }[];
  const omni = DASHBOARDS.omnichannel.kinds as readonly string[];

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 400, now: NOW });
    const parsed = parseRange("2026-08-01", "2026-11-21", NOW, TZ);
    if (!parsed.ok) throw new Error("range");
    range = parsed.range;
    const { db, schema } = t.handle;
    const [tickets, messages, links, labels, people, staff] = await Promise.all([
      db.select().from(schema.tickets),
      db.select().from(schema.messages),
      db.select().from(schema.ticketLabels),
      db.select().from(schema.labels),
      db.select().from(schema.participants),
      db.select().from(schema.users),
    ]);
    participants = people;
    users = new Map(staff.map((u) => [u.username, u]));
    const slaOf = new Map(labels.map((l) => [l.id, l.sla]));
    truth = tickets.map((x) => {
      const staff = messages.filter((m) => m.ticketId === x.id && m.senderUserId != null && m.type !== "system").map((m) => m.createdAt);
      const slas = links.filter((l) => l.ticketId === x.id).map((l) => slaOf.get(l.labelId)!);
      return {
        id: x.id,
        ticketNumber: x.ticketNumber,
        kind: x.kind,
        channel: x.channel,
        status: x.status,
        departmentId: x.departmentId,
        createdAt: x.createdAt,
        updatedAt: x.updatedAt,
        firstResponse: staff.length ? Math.min(...staff) : null,
        sla: slas.length ? Math.min(...slas) : null,
      };
    });
  });
  afterAll(async () => t?.cleanup());

  const admin = () => users.get("admin")!;
  // docs/decisions/009, computed from the source tables: a participant, or the department's
  // conversations that are not workspace chats
  const reads = (reader: UserRow, x: (typeof truth)[number]) =>
    reader.type === "admin" ||
    participants.some((p) => p.ticketId === x.id && p.userId === reader.id) ||
    (x.departmentId === reader.departmentId && x.channel !== "chat");
  const inOmni = () => truth.filter((x) => omni.includes(x.kind) && x.createdAt >= range.from && x.createdAt < range.to);
  const options = (extra: Partial<Parameters<typeof dashboardData>[0]> = {}) => ({
    dashboard: "omnichannel" as const,
    enabledPlugins: ALL_PLUGINS,
    range,
    interval: "day" as const,
    now: NOW,
    timeZone: TZ,
    language: "en" as const,
    ...extra,
  });
  const widget = async (id: string, extra = {}) => (await dashboardData(options(extra))).find((w) => w.def.id === id)!.data;

  it("fills report_facts for every ticket, then only what changed", async () => {
    expect(await refreshFacts()).toBe(400);
    expect(await refreshFacts()).toBe(0);
    const { db, schema } = t.handle;
    const target = truth.find((x) => omni.includes(x.kind) && x.firstResponse == null && x.status < 2)!;
    const at = NOW - 1000;
    await db.insert(schema.messages).values({ ticketId: target.id, body: "On it", senderUserId: 2, createdAt: at });
    await db.update(schema.tickets).set({ updatedAt: at, status: 2 }).where(eq(schema.tickets.id, target.id));
    expect(await refreshFacts()).toBe(1);
    const [fact] = await db.select().from(schema.reportFacts).where(eq(schema.reportFacts.ticketId, target.id));
    expect(fact).toMatchObject({ firstResponseAt: at, resolvedAt: at, status: 2 });
    Object.assign(target, { firstResponse: at, status: 2, updatedAt: at });
  });

  it("puts every messaging channel in the spec's group: posts and mentions are social media, one person's messages mobile messaging", () => {
    const groups = Object.fromEntries(
      [
        "EMAIL",
        "WAUCHAT",
        "LIVECHAT",
        "FB_PAGE_POST",
        "TW_MENTION",
        "IG_POST",
        "IG_MENTION",
        "FB_PM",
        "TW_DM",
        "LINE_DM",
        "WHATSAPP",
        "IG_PM",
        "TELEGRAM",
        "SMS",
        "MANUAL",
        "CALL",
      ].map((c) => [c, channelGroup(c)]),
    );
    expect(groups).toEqual({
      EMAIL: "email",
      WAUCHAT: "chatbot",
      LIVECHAT: "livechat",
      FB_PAGE_POST: "social",
      TW_MENTION: "social",
      IG_POST: "social",
      IG_MENTION: "social",
      FB_PM: "mobile",
      TW_DM: "mobile",
      LINE_DM: "mobile",
      WHATSAPP: "mobile",
      IG_PM: "mobile",
      TELEGRAM: "mobile",
      SMS: "mobile",
      MANUAL: "other",
      CALL: "other",
    });
  });

  it("counts volume by status, channel group and day as the tickets table does", async () => {
    const rows = inOmni();
    expect(rows.length).toBeGreaterThan(100);
    const status = await widget("status");
    expect(status.rows).toEqual(["Open", "Pending", "Resolved", "Closed"].map((s, i) => ({ status: s, count: rows.filter((x) => x.status === i).length })));

    const groups = await widget("channels");
    const byGroup = (g: string) => rows.filter((x) => channelGroup(x.channel) === g).length;
    expect(groups.rows).toEqual([
      { group: "Email", count: byGroup("email") },
      { group: "Chatbot", count: byGroup("chatbot") },
      { group: "Live chat", count: byGroup("livechat") },
      { group: "Social media", count: byGroup("social") },
      { group: "Mobile messaging", count: byGroup("mobile") },
      { group: "Other", count: byGroup("other") },
    ]);
    expect(byGroup("email")).toBeGreaterThan(0);

    const volume = await widget("volume");
    expect(volume.rows).toHaveLength(Math.round((range.to - range.from) / DAY));
    expect(volume.rows.reduce((a, r) => a + Number(r.count), 0)).toBe(rows.length);
    const busiest = volume.rows.reduce((a, r) => (Number(r.count) > Number(a.count) ? r : a));
    const dayStart = range.from + volume.rows.indexOf(busiest) * DAY;
    expect(busiest.count).toBe(rows.filter((x) => x.createdAt >= dayStart && x.createdAt < dayStart + DAY).length);
    expect(busiest.label).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} [A-Z][a-z]{2} 2026$/);

    const hourly = await widget("volume", { interval: "1h" });
    expect(hourly.rows).toHaveLength(volume.rows.length * 24);
    expect(hourly.rows.reduce((a, r) => a + Number(r.count), 0)).toBe(rows.length);
  });

  it("computes SLA outcomes and first-response buckets from labels and messages", async () => {
    const rows = inOmni();
    const outcome = (x: (typeof rows)[number]) => {
      if (x.sla == null) return "No SLA";
      const resolved = x.status >= 2 ? x.updatedAt : null;
      if (resolved != null) return resolved - x.createdAt <= x.sla * 60000 ? "Met" : "Breached";
      return NOW - x.createdAt > x.sla * 60000 ? "Breached" : "In progress";
    };
    const sla = await widget("sla");
    expect(sla.rows).toEqual(["Met", "Breached", "In progress", "No SLA"].map((o) => ({ outcome: o, count: rows.filter((x) => outcome(x) === o).length })));
    expect(sla.rows[0].count).toBeGreaterThan(0);
    expect(sla.rows[1].count).toBeGreaterThan(0);

    const response = await widget("response");
    const bucketOf = (x: (typeof rows)[number]) => (x.firstResponse == null ? -1 : DURATION_BUCKETS.findIndex((b) => x.firstResponse! - x.createdAt < b.below));
    expect(response.rows.map((r) => r.count)).toEqual([0, 1, 2, 3, 4, 5, -1].map((b) => rows.filter((x) => bucketOf(x) === b).length));
    const answered = rows.filter((x) => x.firstResponse != null);
    const average = answered.reduce((a, x) => a + x.firstResponse! - x.createdAt, 0) / answered.length / 60000;
    expect(response.note).toContain(average < 120 ? average.toFixed(1) : (average / 60).toFixed(1));
  });

  it("adds partial days at both ends of a range to the whole days of the rollup", async () => {
    const parsed = parseRange("03-10-2026", "17-10-2026", NOW, TZ);
    if (!parsed.ok) throw new Error("range");
    const inside = truth.filter((x) => omni.includes(x.kind) && x.createdAt >= parsed.range.from && x.createdAt < parsed.range.to);
    // 16:00 UTC in Kuala Lumpur: both ends cut a UTC day
    expect(parsed.range.from % DAY).not.toBe(0);
    const status = (await dashboardData(options({ range: parsed.range }))).find((w) => w.def.id === "status")!.data;
    expect(status.rows.map((r) => r.count)).toEqual([0, 1, 2, 3].map((s) => inside.filter((x) => x.status === s).length));
    const day = (await dashboardData(options({ range: parsed.range, interval: "1h" }))).find((w) => w.def.id === "volume")!.data;
    expect(day.rows.reduce((a, r) => a + Number(r.count), 0)).toBe(inside.length);
  });

  it("keeps CSAT empty but working while nothing is rated", async () => {
    const csat = await widget("csat");
    expect(csat.rows).toEqual([1, 2, 3, 4, 5].map((s) => ({ rating: `${s} stars`, count: 0 })));
    expect(csat.note).toBe("Average: –");
  });

  it("counts the live chat visitors' ratings in CSAT once they rate", async () => {
    const { db, schema } = t.handle;
    const rated = inOmni().slice(0, 5);
    const stars = [5, 4, 4, 2, 5];
    // rating moves the activity time (livechat.server.ts), which is how the facts notice it
    for (const [i, x] of rated.entries())
      await db
        .update(schema.tickets)
        .set({ rating: stars[i], ratingReason: "r", updatedAt: NOW + i })
        .where(eq(schema.tickets.id, x.id));
    expect(await refreshFacts()).toBe(5);
    const csat = await widget("csat");
    expect(csat.rows).toEqual([1, 2, 3, 4, 5].map((s) => ({ rating: `${s} stars`, count: stars.filter((x) => x === s).length })));
    // the other tests count as before
    for (const [i, x] of rated.entries()) Object.assign(x, { updatedAt: NOW + i });
  });

  it("adds the call-centre and trading editions' own widgets, with counts from the tickets", async () => {
    const ids = async (dashboard: "call" | "omnichannel", enabledPlugins: string[]) =>
      (await dashboardData(options({ dashboard, enabledPlugins }))).map((w) => w.def.id);
    expect(await ids("call", ALL_PLUGINS)).not.toContain("call_hours");
    expect(await ids("call", [...ALL_PLUGINS, "calls"])).toContain("call_hours");
    expect(await ids("omnichannel", ALL_PLUGINS)).not.toContain("emotions");
    expect(await ids("omnichannel", [...ALL_PLUGINS, "analyst"])).toContain("emotions");

    const calls = truth.filter((x) => x.kind === "call" && x.createdAt >= range.from && x.createdAt < range.to);
    expect(calls.length).toBeGreaterThan(0);
    const hourOf = (ms: number) => Number(new Intl.DateTimeFormat("en-GB", { timeZone: TZ, hour: "2-digit", hourCycle: "h23" }).format(ms));
    const hours = await widget("call_hours", { dashboard: "call", enabledPlugins: [...ALL_PLUGINS, "calls"] });
    expect(hours.rows.map((r) => r.count)).toEqual(Array.from({ length: 24 }, (_, h) => calls.filter((x) => hourOf(x.createdAt) === h).length));

    const { db, schema } = t.handle;
    const all = await db.select({ kind: schema.tickets.kind, emotion: schema.tickets.emotion, createdAt: schema.tickets.createdAt }).from(schema.tickets);
    const inRange = all.filter((x) => omni.includes(x.kind) && x.createdAt >= range.from && x.createdAt < range.to && x.emotion);
    expect(inRange.length).toBeGreaterThan(0);
    const drawn = await renderDashboard(options({ dashboard: "call", enabledPlugins: [...ALL_PLUGINS, "calls"] }));
    expect(drawn.find((w) => w.id === "call_hours")!.svg).toMatch(/^<svg[^>]*viewBox/);
    const emotions = await widget("emotions", { enabledPlugins: [...ALL_PLUGINS, "analyst"] });
    expect(emotions.rows).toEqual(
      ["anger", "fear", "happy", "love", "sad", "surprise", "curious"].map((e) => ({
        emotion: e[0].toUpperCase() + e.slice(1),
        count: inRange.filter((x) => x.emotion === e).length,
      })),
    );
  });

  it("draws every chart as SVG on the server, one bar per row", async () => {
    const widgets = await renderDashboard(options());
    expect(widgets.map((w) => w.id)).toEqual(["volume", "channels", "status", "sla", "response", "resolution", "csat", "aux"]);
    for (const w of widgets) expect(w.svg, w.id).toMatch(/^<svg[^>]*viewBox/);
    const status = widgets.find((w) => w.id === "status")!;
    const bars = status.svg.match(/<g class="mark-rect role-mark[^"]*"[^>]*>(.*?)<\/g>/)![1];
    expect(bars.match(/<path/g)).toHaveLength(4);
    expect(status.svg).toContain("Pending");
    // only widgets of enabled plugins, and only those the dashboard lists
    expect(await renderDashboard(options({ enabledPlugins: ["tickets"] }))).toEqual([]);
    expect((await renderDashboard(options({ dashboard: "call" }))).map((w) => w.id)).toEqual(["volume", "status", "sla", "response", "resolution", "aux"]);
  });

  it("escapes text drawn into the SVG", async () => {
    const svg = await renderSvg({
      data: { values: [{ a: "<script>alert(1)</script>", b: 1 }] },
      mark: "bar",
      encoding: { x: { field: "a", type: "nominal" }, y: { field: "b", type: "quantitative" } },
    });
    expect(svg).not.toContain("<script>");
    expect(svg).toContain("&lt;script&gt;");
  });

  it("pages the summary report by 30, newest first, with the range's count", async () => {
    const tickets = truth
      .filter((x) => x.kind === "ticket" && x.createdAt >= range.from && x.createdAt < range.to)
      .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id);
    const first = await summary(admin(), "ticket", 4, range, 0, 30, NOW);
    expect(first.count).toBe(tickets.length);
    expect(first.items.map((x) => x.ticketNumber)).toEqual(tickets.slice(0, 30).map((x) => x.ticketNumber));
    const second = await summary(admin(), "ticket", 4, range, 30, 30, NOW);
    expect(second.items.map((x) => x.ticketNumber)).toEqual(tickets.slice(30, 60).map((x) => x.ticketNumber));
    const open = await summary(admin(), "ticket", 0, range, 0, 1000, NOW);
    expect(open.count).toBe(tickets.filter((x) => x.status === 0).length);
    expect(open.items.every((x) => x.status === 0)).toBe(true);
    const withLabel = first.items.find((x) => x.labels.length)!;
    expect(withLabel.slaMinutes).toBe(truth.find((x) => x.id === withLabel.id)!.sla);
  });

  it("exports every conversation of the range as CSV rows, in batches", async () => {
    const rows = inOmni();
    const exported: (string | number)[][] = [];
    for await (const row of exportRows(admin(), range, omni, "day", NOW, 7)) exported.push(row);
    expect(exported).toHaveLength(rows.length);
    expect(new Set(exported.map((r) => r[0])).size).toBe(rows.length);
    expect(new Set(exported.map((r) => r[0]))).toEqual(new Set(rows.map((x) => x.ticketNumber)));
    expect(EXPORT_HEADER).toHaveLength(exported[0].length);
    const one = rows.find((x) => x.firstResponse != null)!;
    const line = exported.find((r) => r[0] === one.ticketNumber)!;
    expect(line[8]).toBe(((one.firstResponse! - one.createdAt) / 60000).toFixed(1));
  });

  it("shows in the summary report and the CSV export only conversations the reader may read", async () => {
    const agent = users.get("agent2")!;
    const inRange = truth.filter((x) => x.createdAt >= range.from && x.createdAt < range.to);
    // the seed has workspace chats of the agent's department and conversations of others they may not read
    expect(inRange.some((x) => x.kind === "chat" && x.departmentId === agent.departmentId && !reads(agent, x))).toBe(true);
    const readable = inRange.filter((x) => reads(agent, x));
    expect(readable.length).toBeGreaterThan(0);
    expect(readable.length).toBeLessThan(inRange.length);

    const mine = await summary(agent, "all", 4, range, 0, 10_000, NOW);
    expect(mine.count).toBe(readable.length);
    expect(new Set(mine.items.map((x) => x.ticketNumber))).toEqual(new Set(readable.map((x) => x.ticketNumber)));
    const chats = await summary(agent, "chat", 4, range, 0, 10_000, NOW);
    expect(chats.items.map((x) => x.ticketNumber).sort()).toEqual(
      readable
        .filter((x) => x.kind === "chat")
        .map((x) => x.ticketNumber)
        .sort(),
    );
    // pages are cut after the filter: the first page is full of readable rows
    const page = await summary(agent, "all", 4, range, 0, 30, NOW);
    expect(page.items.map((x) => x.id)).toEqual(
      [...readable]
        .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
        .slice(0, 30)
        .map((x) => x.id),
    );
    expect((await summary(admin(), "all", 4, range, 0, 10_000, NOW)).count).toBe(inRange.length);

    const exported: (string | number)[][] = [];
    for await (const row of exportRows(agent, range, omni, "day", NOW, 7)) exported.push(row);
    expect(new Set(exported.map((r) => r[0]))).toEqual(
      new Set(
        inOmni()
          .filter((x) => reads(agent, x))
          .map((x) => x.ticketNumber),
      ),
    );
    expect(exported).toHaveLength(inOmni().filter((x) => reads(agent, x)).length);
  });
});
