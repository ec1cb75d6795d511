// Reports: dashboards drawn as SVG on the server, the summary report with Load More, bad ranges,
// the view_report rule, public dashboard links, CSV downloads. Mostly with JavaScript off.
import { test, expect, type Page } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";
import { CHANNELS } from "../../app/conversation/channels";

/** Channel codes that would show a code instead of a name; SMS is the channel's own name in English (and its code). */
const CODES = CHANNELS.filter((c) => c !== "SMS") as readonly string[];

const TZ = "Asia/Kuala_Lumpur"; // the seeded workspace's zone
const DAY = 24 * 60 * 60 * 1000;
/** DD-MM-YYYY of now + days in the workspace zone. */
const dmy = (days: number) => {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", { timeZone: TZ, day: "2-digit", month: "2-digit", year: "numeric" })
      .formatToParts(Date.now() + days * DAY)
      .map((x) => [x.type, x.value]),
  );
  return `${p.day}-${p.month}-${p.year}`;
};

const WIDGETS = [
  "Volume by interval",
  "Volume by channel group",
  "Status breakdown",
  "SLA met and breached",
  "First response time",
  "Resolution time",
  "Customer satisfaction (CSAT)",
  "Agent status time",
  // the SLA plugin's widget (plugins/sla), after the reports plugin's own
  "SLA attainment",
];

const range = (page: Page) => page.locator(".report-range");

async function search(page: Page, start: string, end: string) {
  await range(page).getByLabel("From").fill(start);
  await range(page).getByLabel("To").fill(end);
  await range(page).getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL((url) => url.searchParams.get("start") === start && url.searchParams.get("end") === end);
}

test.describe("reports with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("the admin opens the omnichannel report and sees every chart as SVG, with its data and CSV", async ({ page }) => {
    await login(page, "admin", "admin");
    await page.getByRole("link", { name: "Reports", exact: true }).first().click();
    await expect(page).toHaveURL(/\/report\/omnichannel$/);
    await expect(page.getByRole("heading", { level: 1, name: "Omnichannel report" })).toBeVisible();
    const cards = page.locator(".chart-card");
    await expect(cards).toHaveCount(WIDGETS.length);
    for (const [i, title] of WIDGETS.entries()) {
      const card = cards.nth(i);
      await expect(card.getByRole("heading", { name: title })).toBeVisible();
      const chart = card.getByRole("img", { name: `Chart: ${title}` });
      await expect(chart.locator("svg")).toBeVisible();
      // described in words by the figure's caption
      await expect(chart).toHaveAccessibleDescription(/^((Bar|Line) chart: |No data in this range\.$)/);
      expect((await chart.locator("svg").boundingBox())!.height, title).toBeGreaterThan(50);
    }
    // the status chart: four bars, and a data table with the same four numbers
    const status = page.locator('[data-widget="status"]');
    await expect(status.locator("svg .mark-rect path")).toHaveCount(4);
    await status.getByText("Data table").click();
    const cells = status.locator("table tbody tr");
    await expect(cells).toHaveCount(4);
    await expect(cells.first().locator("td").first()).toHaveText("Open");
    const tableCounts = await cells.locator("td:nth-child(2)").allTextContents();
    const total = tableCounts.reduce((a, n) => a + Number(n), 0);
    expect(total).toBeGreaterThan(100);
    // the CSV behind the chart says the same
    const href = await status.getByRole("link", { name: "Download CSV" }).getAttribute("href");
    const csv = await (await page.request.get(href!)).text();
    expect(csv.trim().split("\r\n")).toEqual(["Status,Conversations", ...["Open", "Pending", "Resolved", "Closed"].map((s, i) => `${s},${tableCounts[i]}`)]);
    // the full export streams one row per conversation of the range
    const exportHref = await page.getByRole("link", { name: "Export CSV" }).getAttribute("href");
    const rows = (await (await page.request.get(exportHref!)).text()).trim().split("\r\n");
    expect(rows[0]).toMatch(/^ticket_number,title,channel,/);
    expect(rows.length - 1).toBe(total);

    // another interval: 96 points a day at 15 minutes, drawn the same way
    await range(page).getByLabel("From").fill(dmy(-1));
    await range(page).getByLabel("To").fill(dmy(0));
    await range(page).getByLabel("Interval").selectOption("15m");
    await range(page).getByRole("button", { name: "Search" }).click();
    await expect(page).toHaveURL(/interval=15m/);
    const volume = page.locator('[data-widget="volume"]');
    await volume.getByText("Data table").click();
    await expect(volume.locator("table tbody tr")).toHaveCount(2 * 96);
  });

  test("the summary report runs for a range and loads 30 more", async ({ page }) => {
    await login(page, "admin", "admin");
    await page.goto("/report/ticket/4");
    await expect(page.getByRole("heading", { name: "Summary report" })).toBeVisible();
    await search(page, dmy(-20), dmy(0));
    await expect(page).toHaveURL(new RegExp(`start=${dmy(-20)}&end=${dmy(0)}`));
    await expect(range(page).getByLabel("From")).toHaveValue(dmy(-20));
    const rows = page.locator(".report-table tbody tr");
    await expect(rows).toHaveCount(30);
    const count = Number((await page.getByRole("status").textContent())!.match(/\d+/)![0]);
    expect(count).toBeGreaterThan(60);
    for (const header of ["Ticket No.", "Title", "Channel", "Label", "Status", "Assignee", "Department", "Time Created", "Time Updated", "SLA"])
      await expect(page.locator(".report-table").first().getByRole("columnheader", { name: header, exact: true })).toBeVisible();
    // grouped by creation day (DD/MM/YYYY), newest first, inside the range
    const captions = (await page.locator(".report-table caption").allTextContents()).map((d) => d.split("/").reverse().join("-"));
    expect(captions).toEqual([...captions].sort().reverse());
    expect(captions[0] <= dmy(0).split("-").reverse().join("-") && captions.at(-1)! >= dmy(-20).split("-").reverse().join("-")).toBe(true);
    const first30 = await rows.locator("td:first-child").allTextContents();
    await page.getByRole("link", { name: "Load More" }).click();
    await expect(rows).toHaveCount(60);
    expect((await rows.locator("td:first-child").allTextContents()).slice(0, 30)).toEqual(first30);
    await expect(range(page).getByLabel("From")).toHaveValue(dmy(-20));
    // a conversation links to its page
    await expect(rows.first().getByRole("link")).toHaveAttribute("href", /^\/ticket\/\d+$/);
    // channels by their names, never their codes (TW_MENTION, FB_PAGE_POST...)
    const channels = await page.locator(".report-table tbody td:nth-child(3)").allTextContents();
    expect(channels.length).toBe(60);
    expect(channels.filter((c) => CODES.includes(c))).toEqual([]);
  });

  test("a chart in Chinese: months and weekdays on its axes, its description and its data table in Chinese", async ({ page, context, baseURL }) => {
    await login(page, "admin", "admin");
    await chooseLanguage(context, baseURL!, "zh");
    await page.goto(`/report/omnichannel?start=${dmy(-6)}&end=${dmy(0)}&interval=day`);
    const volume = page.locator('[data-widget="volume"]');
    const chart = volume.getByRole("img", { name: "图表：按时间间隔的数量" });
    await expect(chart).toHaveAccessibleDescription(/^折线图：按时间统计的会话数。/);
    const ticks = (await volume.locator(".chart-svg svg text").allTextContents()).join(" ");
    expect(ticks).toMatch(/\d+月\d+日 周[一二三四五六日]/);
    expect(ticks).not.toMatch(/\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun)/);
    await volume.locator("summary").click();
    await expect(volume.getByRole("columnheader")).toHaveText(["时间", "会话数"]);
    const rows = volume.locator("table tbody tr");
    await expect(rows).toHaveCount(7);
    await expect(rows.first().locator("td").first()).toHaveText(/^\d{4}年\d{1,2}月\d{1,2}日周[一二三四五六日]$/);
    // the summary report names channels in Chinese too
    await page.goto(`/report/ticket/4?start=${dmy(-20)}&end=${dmy(0)}`);
    const channels = await page.locator(".report-table tbody td:nth-child(3)").allTextContents();
    expect(channels.length).toBeGreaterThan(0);
    expect(channels.filter((c) => CODES.includes(c))).toEqual([]);
  });

  test("bad ranges get a clear message and no results", async ({ page }) => {
    await login(page, "admin", "admin");
    await page.goto("/report/ticket/4");
    const cases: [string, string, string][] = [
      [dmy(-3), dmy(1), "The date range cannot end in the future."],
      [dmy(0), dmy(-3), "The start date must be on or before the end date."],
      ["01/01/2026", dmy(0), "Please enter both dates as DD-MM-YYYY."],
      ["31-02-2026", dmy(0), "Please enter both dates as DD-MM-YYYY."],
      [dmy(-1), "yesterday", "Please enter both dates as DD-MM-YYYY."],
    ];
    for (const [start, end, message] of cases) {
      await search(page, start, end);
      await expect(page.getByRole("alert")).toHaveText(message);
      await expect(page.locator(".report-table")).toHaveCount(0);
      await expect(range(page).getByLabel("From")).toHaveValue(start);
      await expect(range(page).getByLabel("To")).toHaveValue(end);
    }
    await page.goto(`/report/omnichannel?start=${dmy(0)}&end=${dmy(2)}`);
    await expect(page.getByRole("alert")).toHaveText("The date range cannot end in the future.");
    await expect(page.locator(".chart-card")).toHaveCount(0);
    const api = await page.request.get(`/report/generate?type=ticket&status=4&offset=0&startDate=2026-01-02&endDate=2026-01-01`);
    expect(api.status()).toBe(400);
    expect(await api.json()).toEqual({ result: "failed", description: "The start date must be on or before the end date." });
  });

  test("an agent without view_report is sent home; one with it sees the reports", async ({ browser, baseURL }) => {
    for (const [username, allowed] of [
      ["agent", false],
      ["agent2", true],
    ] as const) {
      const context = await browser.newContext({ javaScriptEnabled: false });
      await chooseLanguage(context, baseURL!);
      const page = await context.newPage();
      await login(page, username, "agent");
      await expect(page.locator(".shell nav").getByRole("link", { name: "Reports", exact: true })).toHaveCount(allowed ? 1 : 0);
      for (const path of ["/report/omnichannel", "/dashboard", "/report/ticket/4", "/interactions", "/report/call"]) {
        await page.goto(path);
        await expect(page, `${username} ${path}`).toHaveURL(allowed ? new RegExp(`${path.replace(/\//g, "\\/")}$`) : `${baseURL}/`);
      }
      const api = await page.request.get("/api/report/csat");
      expect(api.status()).toBe(allowed ? 200 : 403);
      await context.close();
    }
  });

  test("the admin creates a public dashboard link that works logged out, then revokes it", async ({ page, browser, baseURL }) => {
    await login(page, "admin", "admin");
    await page.goto("/report/share");
    await page.getByRole("button", { name: "Create a link" }).click();
    await expect(page.getByRole("status")).toHaveText("Link created.");
    const link = page.locator(".share-links li").first();
    const url = (await link.getByRole("link").textContent())!;
    expect(url).toMatch(new RegExp(`^${baseURL}/dashboard/[A-Za-z0-9_-]{32}$`));

    const visitor = await browser.newContext({ javaScriptEnabled: false });
    await chooseLanguage(visitor, baseURL!);
    const guest = await visitor.newPage();
    await guest.goto(url);
    await expect(guest.getByRole("heading", { level: 1, name: "Dashboard" })).toBeVisible();
    await expect(guest.locator(".chart-card svg")).toHaveCount(7);
    await expect(guest.locator(".shell")).toHaveCount(0);
    expect((await guest.request.get(`${url}x`)).status()).toBe(404);

    await link.getByRole("button", { name: "Revoke" }).click();
    await expect(page.getByRole("status")).toHaveText("Link revoked.");
    const gone = await guest.goto(url);
    expect(gone!.status()).toBe(404);
    await expect(guest.getByText("The page you have requested was not found.")).toBeVisible();
    await visitor.close();
  });

  test("agents cannot manage public links", async ({ browser, baseURL }) => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    await chooseLanguage(context, baseURL!);
    const page = await context.newPage();
    await login(page, "agent2", "agent");
    const response = await page.goto("/report/share");
    expect(response!.status()).toBe(403);
    await context.close();
  });
});

test.describe("reports with JavaScript on", () => {
  test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

  test("charts become interactive vega views without breaking the CSP", async ({ page }) => {
    const problems: string[] = [];
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    page.on("pageerror", (e) => problems.push(String(e)));
    await login(page, "admin", "admin");
    await page.goto("/report/omnichannel");
    const status = page.locator('[data-widget="status"]');
    await expect(status.locator(".chart-live svg")).toBeVisible({ timeout: 15_000 });
    await expect(status.locator(".chart-svg")).toBeHidden();
    // drawn at the card's width, not squeezed into an unmeasured box
    const cardWidth = (await status.boundingBox())!.width;
    expect((await status.locator(".chart-live svg").boundingBox())!.width).toBeGreaterThan(cardWidth * 0.8);
    await status.locator(".chart-live svg .mark-rect path").first().hover();
    await expect(page.locator("#vg-tooltip-element")).toContainText("Conversations");
    // still one image named in the page's language: vega's own English container role is gone
    await expect(status.getByRole("img", { name: "Chart: Status breakdown" })).toBeVisible();
    await expect(status.locator("[aria-roledescription]:not([aria-hidden] *)")).toHaveCount(0);
    expect(problems).toEqual([]);
  });

  test("the interactive chart speaks Chinese as the server's did", async ({ page, context, baseURL }) => {
    await login(page, "admin", "admin");
    await chooseLanguage(context, baseURL!, "zh");
    await page.goto(`/report/omnichannel?start=${dmy(-6)}&end=${dmy(0)}&interval=day`);
    const volume = page.locator('[data-widget="volume"]');
    await expect(volume.locator(".chart-live svg")).toBeVisible({ timeout: 15_000 });
    const ticks = (await volume.locator(".chart-live svg text").allTextContents()).join(" ");
    expect(ticks).toMatch(/\d+月\d+日 周[一二三四五六日]/);
    expect(ticks).not.toMatch(/\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun)/);
    await volume.locator("summary").click();
    await volume.screenshot({ path: process.env.CHART_SCREENSHOT || test.info().outputPath("chart-zh.png") });
  });
});

test("JSON twins answer with a session token: generate, interval, csat, aux and the export", async ({ request }) => {
  const auth = await (await request.post("/api/auth2", { data: { client: "admin", password: process.env.SEED_PASSWORD || "demo1234", type: "admin" } })).json();
  const token = auth.token as string;
  const ymd = (days: number) => dmy(days).split("-").reverse().join("-");
  const range = `startDate=${ymd(-10)}&endDate=${ymd(0)}`;

  const first = await (await request.get(`/report/generate?token=${token}&type=ticket&status=4&offset=0&${range}`)).json();
  expect(first.result).toBe("success");
  // groups by creation day (DD/MM/YYYY), newest first, inside the range (not necessarily today:
  // just after midnight nothing may have been created yet)
  const days = Object.keys(first.data).map((d) => d.split("/").reverse().join("-"));
  expect(days).toEqual([...days].sort().reverse());
  expect(days[0] <= ymd(0) && days.at(-1)! >= ymd(-10)).toBe(true);
  const rows = Object.values(first.data as Record<string, { ticket_number: number; closed: number }[]>).flat();
  expect(rows).toHaveLength(30);
  expect(first.count).toBeGreaterThan(30);
  const next = await (await request.get(`/report/generate?token=${token}&type=ticket&status=4&offset=30&${range}`)).json();
  const nextRows = Object.values(next.data as Record<string, { ticket_number: number }[]>).flat();
  expect(nextRows.map((r) => r.ticket_number)).not.toContain(rows[0].ticket_number);
  expect(next.count).toBe(first.count);

  const interval = await (await request.get(`/api/report/interval?_token=${token}&${range}&interval=1h`)).json();
  expect(interval).toMatchObject({ result: "success", interval: "1h" });
  expect(interval.data).toHaveLength(11 * 24);
  const csat = await (await request.get(`/api/report/csat?_token=${token}&${range}`)).json();
  // one row per star (live chat ratings of other tests may be in the range; the counts are checked against the database in the unit tests)
  expect(csat.data).toHaveLength(5);
  for (const r of csat.data as { count: number }[]) expect(Number.isInteger(r.count) && r.count >= 0).toBe(true);
  expect((await request.get(`/api/report/aux?_token=${token}`)).status()).toBe(200);

  // the export with the same token: as many rows as the omnichannel volume chart counts
  const exported = (await (await request.get(`/report/export?token=${token}&${range}&step=1h`)).text()).trim().split("\r\n");
  const volume = interval.data.reduce((a: number, r: { count: number }) => a + r.count, 0);
  expect(exported.length - 1).toBe(volume);

  expect((await request.get(`/api/report/csat?_token=nope`)).status()).toBe(403);
  expect((await request.get(`/report/export?${range}&step=day`)).status()).toBe(403);
  expect((await request.get(`/report/generate?token=${token}&type=nope&status=4&offset=0&${range}`)).status()).toBe(400);
});

test("the summary report, its JSON twin and the export show an agent only the conversations they may read", async ({ request }) => {
  const tokenOf = async (client: string, type: "admin" | "agent") =>
    (await (await request.post("/api/auth2", { data: { client, password: process.env.SEED_PASSWORD || "demo1234", type } })).json()).token as string;
  const [admin, agent] = [await tokenOf("admin", "admin"), await tokenOf("agent2", "agent")];
  const ymd = (days: number) => dmy(days).split("-").reverse().join("-");
  const range = `startDate=${ymd(-60)}&endDate=${ymd(0)}`;
  const generate = async (token: string) =>
    (await (await request.get(`/report/generate?token=${token}&type=chat&status=4&offset=0&${range}`)).json()) as { count: number };
  const exported = async (token: string) => (await (await request.get(`/report/export?token=${token}&${range}&step=day`)).text()).trim().split("\r\n");
  // workspace chats are for their participants only: agent2 takes part in some of the seeded ones
  const [all, mine] = [await generate(admin), await generate(agent)];
  expect(mine.count).toBeGreaterThan(0);
  expect(mine.count).toBeLessThan(all.count);
  const [allRows, myRows] = [await exported(admin), await exported(agent)];
  expect(myRows[0]).toBe(allRows[0]);
  expect(myRows.length).toBeLessThan(allRows.length);
  expect(allRows).toEqual(expect.arrayContaining(myRows));
});
