// Supervision against the real call server (Kamailio and rtpengine on loopback, started here with
// the rtpengine ng port the e2e server asks for listen-ins): agent A calls agent B; while it rings
// /supervisory shows B Incoming and the call waiting; B accepts: both Engaged, the call live; the
// supervisor listens in (rtpengine forks both parties' audio to the supervisor's browser: its
// inbound RTP bytes grow in getStats()), stops; A hangs up: both in ACW. Without JavaScript the
// page still shows the states; an agent without view_report is refused. Then an attended transfer
// with the same servers: X calls Y, Y consults Z (X on hold, shown), completes: X talks with Z.
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { login, hydrated } from "./helpers";
import { FAKE_MEDIA_LAUNCH, callerName, newAgent, newPage, runDigits } from "./softphone-agents";
import { E2E_RTPENGINE_NG_PORT, E2E_SIP_WS_PORT } from "../../playwright.config";
import { missingBinariesMessage, sipBinariesPresent, startSipServers, type SipServers } from "../../plugins/calls/sip/servers";
import { sipHookSecret } from "../../plugins/calls/sip/hook-secret";

const present = sipBinariesPresent();
if (!present && process.env.CI) throw new Error(`CI must run the call tests: ${missingBinariesMessage()}`);

const stamp = Date.now().toString(36);
const digits = runDigits();
const agents = [
  { username: `supa-${stamp}`, number: `9${digits}1` },
  { username: `supb-${stamp}`, number: `9${digits}2` },
];
const transferAgents = ["x", "y", "z"].map((k, i) => ({ username: `att${k}-${stamp}`, number: `6${digits}${i + 1}` }));

test.use({ launchOptions: FAKE_MEDIA_LAUNCH });

test.describe("supervision of live calls", () => {
  test.skip(!present, `Kamailio is not installed: ${missingBinariesMessage()}`);
  let servers: SipServers;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-e2e-sup-"));

  test.beforeAll(async ({ baseURL }) => {
    servers = await startSipServers({
      runDir,
      wsPort: E2E_SIP_WS_PORT,
      rtpengineNgPort: E2E_RTPENGINE_NG_PORT,
      authUrl: `${baseURL!.replace("localhost", "127.0.0.1")}/hooks/sip/auth`,
      hookSecret: sipHookSecret({ SESSION_SECRET: "e2e-secret" }),
    });
  });
  test.afterAll(async () => {
    await servers?.stop();
    fs.rmSync(runDir, { recursive: true, force: true });
  });

  test("a supervisor sees the agents' states and the waiting call, listens in on the live call, and sees ACW after it", async ({ browser, baseURL }) => {
    test.setTimeout(150_000);
    const sup = await newPage(browser, baseURL!, true);
    await login(sup, "admin", "admin");
    const [a, b] = [await newAgent(sup, browser, baseURL!, agents[0].username), await newAgent(sup, browser, baseURL!, agents[1].username)];
    await sup.goto("/call_config");
    const form = sup.locator("#sip-form");
    for (const agent of agents) {
      await form.getByLabel("Agent", { exact: true }).selectOption({ label: `${callerName(agent.username)} (${agent.username})` });
      await form.getByLabel("Extension").fill(agent.number);
      await form.getByLabel("SIP password").fill(`sip-${agent.username}`);
      await form.getByRole("button", { name: "Save" }).click();
      await expect(sup.getByTestId(`sip-account-${agent.number}`)).toContainText(agent.username);
    }
    for (const page of [a, b]) {
      await page.goto("/");
      await hydrated(page);
      await expect(page.getByTestId("sip-banner")).toHaveText(/Connected to call server\./, { timeout: 15_000 });
    }
    const stateOf = (page: Page, n: number) => page.getByTestId(`agent-${agents[n].number}`).getByTestId("agent-state");

    await sup.goto("/supervisory");
    await hydrated(sup);
    await expect(sup.getByRole("heading", { level: 1, name: "Supervisory" })).toBeVisible();
    await expect(stateOf(sup, 0)).toHaveText("Ready");
    await expect(stateOf(sup, 1)).toHaveText("Ready");

    // A calls B: B is Incoming, the call waits
    await a.getByLabel("Number or extension").fill(agents[1].number);
    await a.getByRole("button", { name: "Call", exact: true }).click();
    const incoming = b.getByRole("alertdialog");
    await expect(incoming).toContainText(`Incoming call from ${agents[0].number}`, { timeout: 15_000 });
    await expect(stateOf(sup, 1)).toHaveText("Incoming", { timeout: 10_000 });
    await expect(sup.getByRole("row", { name: new RegExp(`${agents[0].number}.*${agents[1].number}`) }).first()).toBeVisible();

    await incoming.getByRole("button", { name: "Accept" }).click();
    await expect(a.getByTestId("call-status")).toHaveText(`On a call with ${agents[1].number}`, { timeout: 15_000 });
    await expect(stateOf(sup, 0)).toHaveText("Engaged", { timeout: 10_000 });
    await expect(stateOf(sup, 1)).toHaveText("Engaged");
    await expect(sup.getByText("No calls waiting.")).toBeVisible();

    // the supervisor listens in: both parties' audio reaches the supervisor's browser
    await sup.getByRole("button", { name: `Listen in on ${agents[0].number} and ${agents[1].number}` }).click();
    await expect(sup.getByTestId("listening")).toContainText(`Listening in on ${agents[0].number} and ${agents[1].number}.`, { timeout: 15_000 });
    const heard = () => sup.evaluate(() => (window as unknown as { __listenIn: () => Promise<number> }).__listenIn());
    await expect.poll(heard, { timeout: 15_000 }).toBeGreaterThan(2000);
    expect(await axeViolations(sup)).toEqual([]);
    await sup.getByRole("button", { name: "Stop listening" }).click();
    await expect(sup.getByTestId("listening")).toHaveCount(0);

    // the parties still hear each other
    const inbound = (page: Page) =>
      page.evaluate(() => (window as unknown as { __softphone: { inbound(): Promise<{ bytes: number }> } }).__softphone.inbound().then((r) => r.bytes));
    const before = await inbound(b);
    await expect.poll(() => inbound(b), { timeout: 10_000 }).toBeGreaterThan(before + 1000);

    // A hangs up: both in after-call work
    await a.getByRole("button", { name: "Hang up" }).click();
    await expect(stateOf(sup, 0)).toHaveText("ACW", { timeout: 10_000 });
    await expect(stateOf(sup, 1)).toHaveText("ACW");
    await expect(sup.getByText("No live calls.")).toBeVisible();
    await b.getByRole("button", { name: "Ready" }).click();
    await expect(stateOf(sup, 1)).toHaveText("Ready", { timeout: 10_000 });

    // without JavaScript the page renders the same states
    const plain = await newPage(browser, baseURL!, false);
    await login(plain, "admin", "admin");
    await plain.goto("/supervisory");
    await expect(plain.getByTestId(`agent-${agents[0].number}`)).toHaveAttribute("data-state", /acw|ready/);
    // an agent without view_report may not supervise
    const denied = await a.goto("/supervisory");
    expect(denied?.status()).toBe(403);
  });
  // The held party's INVITE with Replaces goes to the Refer-To URI, the target's Contact; Kamailio
  // finds the target by that URI's user in its location table. It failed while sip.js's Contact user
  // was a random token (404); the softphone's Contact user is now its extension (contactName, ADR 052).
  // fixme: passed once since (5.6 min at load 17-20); at load 25-38 it ran out of time before the
  // transfer (saving accounts, the first call's popup): to be unmarked after a pass on a quiet machine.
  test.fixme("attended transfer: X calls Y, Y consults Z while X is on hold, completes; X and Z talk", async ({ browser, baseURL }) => {
    test.setTimeout(300_000);
    const setup = await newPage(browser, baseURL!, true);
    await login(setup, "admin", "admin");
    const [x, y, z] = [
      await newAgent(setup, browser, baseURL!, transferAgents[0].username),
      await newAgent(setup, browser, baseURL!, transferAgents[1].username),
      await newAgent(setup, browser, baseURL!, transferAgents[2].username),
    ];
    await setup.goto("/call_config");
    const form = setup.locator("#sip-form");
    for (const agent of transferAgents) {
      await form.getByLabel("Agent", { exact: true }).selectOption({ label: `${callerName(agent.username)} (${agent.username})` });
      await form.getByLabel("Extension").fill(agent.number);
      await form.getByLabel("SIP password").fill(`sip-${agent.username}`);
      await form.getByRole("button", { name: "Save" }).click();
      await expect(setup.getByTestId(`sip-account-${agent.number}`)).toContainText(agent.username);
    }
    for (const page of [x, y, z]) {
      await page.goto("/");
      await hydrated(page);
      await expect(page.getByTestId("sip-banner")).toHaveText(/Connected to call server\./, { timeout: 45_000 });
    }
    const [X, Y, Z] = transferAgents.map((a) => a.number);
    await x.getByLabel("Number or extension").fill(Y);
    await x.getByRole("button", { name: "Call", exact: true }).click();
    await y.getByRole("alertdialog").getByRole("button", { name: "Accept" }).click({ timeout: 15_000 });
    await expect(x.getByTestId("call-status")).toHaveText(`On a call with ${Y}`, { timeout: 15_000 });

    // Y consults Z: X waits on hold, and Y sees so
    await y.getByLabel("Consult before transferring to").fill(Z);
    await y.getByRole("button", { name: "Consult", exact: true }).click();
    await expect(y.getByTestId("call-status")).toHaveText(`On hold with ${X}`, { timeout: 10_000 });
    await z.getByRole("alertdialog").getByRole("button", { name: "Accept" }).click({ timeout: 15_000 });
    await expect(y.getByTestId("consult")).toContainText(`Consulting ${Z} · ${X} is on hold`);
    await y.getByRole("button", { name: "Complete transfer" }).click();

    // X's phone calls Z with Replaces; Z's phone swaps the consultation call for it; Y is done
    await expect(y.locator(".softphone")).toHaveAttribute("data-call-state", "acw", { timeout: 15_000 });
    await expect(x.getByTestId("call-status")).toHaveText(`On a call with ${Z}`, { timeout: 15_000 });
    await expect(z.getByTestId("call-status")).toHaveText(`On a call with ${X}`, { timeout: 15_000 });
    const heard = (page: Page) =>
      page.evaluate(() => (window as unknown as { __softphone: { inbound(): Promise<{ bytes: number }> } }).__softphone.inbound().then((r) => r.bytes));
    for (const page of [x, z]) {
      const before = await heard(page);
      await expect.poll(() => heard(page), { timeout: 10_000 }).toBeGreaterThan(before + 1000);
    }
    await z.getByRole("button", { name: "Hang up" }).click();
    await expect(x.locator(".softphone")).toHaveAttribute("data-call-state", "acw", { timeout: 10_000 });
  });
});
