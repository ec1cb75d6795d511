// The softphone against the real call server: this spec starts Kamailio and rtpengine on loopback
// (the product's auth hook at the e2e server). An admin gives two new agents SIP accounts on
// /call_config without JavaScript (a refusal keeps the input), the agents' softphones register
// ('Connected to call server.'), agent A calls agent B, B accepts, both hear the other (inbound RTP
// bytes grow in getStats() on both sides, through rtpengine), A holds (A hears nothing) and resumes,
// mutes, sends DTMF tones, hangs up; both are in after-call work until Ready. The CALL ticket shows
// the call (direction, numbers, talk and hold durations, hang-up cause) on /call without
// JavaScript and in the Call panel of /call/{n}. Two Chromium contexts with fake media devices.
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { login, hydrated } from "./helpers";
import { FAKE_MEDIA_LAUNCH, callerName, newAgent, newPage, runDigits } from "./softphone-agents";
import { E2E_SIP_WS_PORT } from "../../playwright.config";
import { missingBinariesMessage, sipBinariesPresent, startSipServers, type SipServers } from "../../plugins/calls/sip/servers";
import { sipHookSecret } from "../../plugins/calls/sip/hook-secret";

const present = sipBinariesPresent();
if (!present && process.env.CI) throw new Error(`CI must run the call tests: ${missingBinariesMessage()}`);

const stamp = Date.now().toString(36);
const digits = runDigits();
const agents = [
  { username: `sipa-${stamp}`, number: `7${digits}1` },
  { username: `sipb-${stamp}`, number: `7${digits}2` },
];
// the blind transfer's three agents: X calls Y, Y transfers X to Z
const transferAgents = ["x", "y", "z"].map((k, i) => ({
  username: `sip${k}-${stamp}`,
  number: `8${digits}${i + 1}`,
}));

test.use({ launchOptions: FAKE_MEDIA_LAUNCH });

test.describe("calls between two agents' softphones", () => {
  test.skip(!present, `Kamailio is not installed: ${missingBinariesMessage()}`);
  let servers: SipServers;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-e2e-sip-"));

  test.beforeAll(async ({ baseURL }) => {
    servers = await startSipServers({
      runDir,
      wsPort: E2E_SIP_WS_PORT,
      authUrl: `${baseURL!.replace("localhost", "127.0.0.1")}/hooks/sip/auth`,
      hookSecret: sipHookSecret({ SESSION_SECRET: "e2e-secret" }),
    });
  });
  test.afterAll(async () => {
    await servers?.stop();
    fs.rmSync(runDir, { recursive: true, force: true });
  });

  test("an admin adds SIP accounts without JavaScript; A calls B, both hear each other, hold, mute, DTMF, ACW, and the CALL ticket shows the call", async ({
    browser,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const setup = await newPage(browser, baseURL!, true);
    await login(setup, "admin", "admin");
    const [a, b] = [await newAgent(setup, browser, baseURL!, agents[0].username), await newAgent(setup, browser, baseURL!, agents[1].username)];

    // the accounts, added by an admin with JavaScript off
    const admin = await newPage(browser, baseURL!, false);
    await login(admin, "admin", "admin");
    await admin.goto("/call_config");
    await expect(admin.getByRole("heading", { level: 1, name: "Call settings" })).toBeVisible();
    // axe runs a script: on the same page with JavaScript on
    await setup.goto("/call_config");
    await hydrated(setup);
    expect(await axeViolations(setup)).toEqual([]);
    const form = admin.locator("#sip-form");
    for (const agent of agents) {
      await form.getByLabel("Agent", { exact: true }).selectOption({ label: `${callerName(agent.username)} (${agent.username})` });
      await form.getByLabel("Extension").fill(agent.number);
      await form.getByLabel("SIP password").fill("short");
      await form.getByRole("button", { name: "Save" }).click();
      await expect(admin.getByText("The SIP password needs at least 8 characters.")).toBeVisible();
      await expect(form.getByLabel("Extension")).toHaveValue(agent.number);
      await form.getByLabel("SIP password").fill(`sip-${agent.username}`);
      await form.getByRole("button", { name: "Save" }).click();
      await expect(admin.getByRole("status")).toHaveText("SIP account saved.");
      await expect(admin.getByTestId(`sip-account-${agent.number}`)).toContainText(agent.username);
    }

    // the softphones load (now that the agents have accounts) and register
    for (const page of [a, b]) {
      await page.goto("/");
      await hydrated(page);
      await expect(page.getByTestId("sip-banner")).toHaveText(/Connected to call server\./, { timeout: 15_000 });
    }
    await a.getByLabel("Number or extension").fill(agents[1].number);
    await a.getByRole("button", { name: "Call", exact: true }).click();
    const incoming = b.getByRole("alertdialog");
    await expect(incoming).toContainText(`Incoming call from ${agents[0].number}`, { timeout: 15_000 });
    await incoming.getByRole("button", { name: "Accept" }).click();
    await expect(a.getByTestId("call-status")).toHaveText(`On a call with ${agents[1].number}`, { timeout: 15_000 });
    await expect(b.getByTestId("call-status")).toHaveText(`On a call with ${agents[0].number}`);
    // while the call is up, it is on /call/ongoing (ringing or talking)
    await admin.goto("/call/ongoing");
    await expect(admin.getByRole("row", { name: new RegExp(`${agents[0].number}.*${agents[1].number}`) })).toContainText("Talking");

    // both hear the other: the inbound audio's bytes grow on each side (rtpengine relays DTLS-SRTP)
    // the softphone on a call passes axe (its controls, keypad and transfer form)
    await a.getByText("Keypad", { exact: true }).click();
    expect(await axeViolations(a, { include: ".softphone" })).toEqual([]);
    await a.getByText("Keypad", { exact: true }).click();
    const heard = (page: Page) =>
      page.evaluate(() => (window as unknown as { __softphone: { inbound(): Promise<{ bytes: number }> } }).__softphone.inbound().then((r) => r.bytes));
    for (const page of [a, b]) {
      const before = await heard(page);
      await expect.poll(() => heard(page), { timeout: 10_000 }).toBeGreaterThan(before + 1000);
    }

    // A holds: B stops sending (its side is recvonly), so A hears nothing until A resumes
    await a.getByRole("button", { name: "Hold", exact: true }).click();
    await expect(a.getByTestId("call-status")).toHaveText(`On hold with ${agents[1].number}`);
    await a.waitForTimeout(800);
    const held = await heard(a);
    await a.waitForTimeout(1500);
    expect((await heard(a)) - held).toBeLessThan(300);
    await a.getByRole("button", { name: "Resume" }).click();
    await expect(a.getByTestId("call-status")).toHaveText(`On a call with ${agents[1].number}`);
    const resumed = await heard(a);
    await expect.poll(() => heard(a), { timeout: 10_000 }).toBeGreaterThan(resumed + 1000);

    // mute and unmute; DTMF tones from the keypad
    await a.getByRole("button", { name: "Mute", exact: true }).click();
    await expect(a.getByText("Your microphone is muted.")).toBeVisible();
    await a.getByRole("button", { name: "Unmute" }).click();
    await expect(a.getByText("Your microphone is muted.")).toHaveCount(0);
    await a.getByText("Keypad", { exact: true }).click();
    await a.getByRole("button", { name: "Send tone 1" }).click();
    await a.getByRole("button", { name: "Send tone #" }).click();
    await expect(a.getByTestId("dtmf-sent")).toHaveText("Tones sent: 1#");
    await expect(a.getByTestId("call-timer")).toHaveText(/Call time 0:\d\d/);

    await a.getByRole("button", { name: "Hang up" }).click();
    // after-call work for both agents until Ready (or acw_seconds)
    for (const page of [a, b]) {
      await expect(page.locator(".softphone")).toHaveAttribute("data-call-state", "acw", { timeout: 10_000 });
      await expect(page.getByTestId("call-status")).toHaveText(/After-call work: \d+ s left/);
    }
    await b.waitForTimeout(1200);
    await b.getByRole("button", { name: "Ready" }).click();
    await a.getByRole("button", { name: "Ready" }).click();
    for (const page of [a, b]) await expect(page.locator(".softphone")).toHaveAttribute("data-call-state", "idle");

    // the CALL ticket, as the admin sees it without JavaScript
    await admin.goto(`/call?number=${agents[1].number}`);
    const row = admin.getByRole("row", { name: new RegExp(`${agents[0].number}.*${agents[1].number}`) });
    await expect(row).toContainText("Internal");
    await expect(row).toContainText("Ended");
    await expect(row).toContainText(`Hung up (by ${agents[0].number})`);
    await expect(row.getByTestId("talk")).toHaveText(/^\d+ s$/);
    expect(Number((await row.getByTestId("talk").innerText()).split(" ")[0])).toBeGreaterThanOrEqual(3);
    expect(Number((await row.getByTestId("hold").innerText()).split(" ")[0])).toBeGreaterThanOrEqual(2);
    // B's after-call work (Ready after about a second) is B's own: the call's agent is B (the callee)
    await expect.poll(async () => (await row.getByTestId("acw").innerText()).trim()).toMatch(/^\d+ s$/);
    await admin.goto("/call/ongoing");
    await expect(admin.getByText("No calls right now.")).toBeVisible();
    // the list and the call's page pass axe (JavaScript on, as axe needs)
    await setup.goto(`/call?number=${agents[1].number}`);
    await hydrated(setup);
    expect(await axeViolations(setup)).toEqual([]);
    await admin.goto(`/call?number=${agents[1].number}`);
    await admin
      .getByRole("link", { name: /^#\d+$/ })
      .first()
      .click();
    await expect(admin.getByText("Direction: Internal")).toBeVisible();
    await expect(admin.getByText(`From ${agents[0].number} to ${agents[1].number}`)).toBeVisible();
    await expect(admin.getByText("Hang-up cause: Hung up")).toBeVisible();
    await setup.goto(new URL(admin.url()).pathname);
    await hydrated(setup);
    expect(await axeViolations(setup)).toEqual([]);
    // B, the agent on the call, reads it too (a participant, whatever its department)
    await b.goto(`/call?number=${agents[1].number}`);
    await expect(b.getByRole("row", { name: new RegExp(`${agents[0].number}.*${agents[1].number}`) })).toContainText("Ended");
  });

  test("blind transfer: X calls Y, Y transfers X to Z, X and Z talk", async ({ browser, baseURL }) => {
    test.setTimeout(120_000);
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
      await expect(page.getByTestId("sip-banner")).toHaveText(/Connected to call server\./, { timeout: 15_000 });
    }
    const [X, Y, Z] = transferAgents.map((a) => a.number);
    await x.getByLabel("Number or extension").fill(Y);
    await x.getByRole("button", { name: "Call", exact: true }).click();
    await y.getByRole("alertdialog").getByRole("button", { name: "Accept" }).click({ timeout: 15_000 });
    await expect(x.getByTestId("call-status")).toHaveText(`On a call with ${Y}`, { timeout: 15_000 });

    await y.getByLabel("Transfer to").fill(Z);
    await y.getByRole("button", { name: "Transfer", exact: true }).click();
    // X's phone calls Z by itself (REFER); Y is done with the call
    const incoming = z.getByRole("alertdialog");
    await expect(incoming).toContainText(`Incoming call from ${X}`, { timeout: 15_000 });
    await expect(y.locator(".softphone")).toHaveAttribute("data-call-state", "acw", { timeout: 10_000 });
    await incoming.getByRole("button", { name: "Accept" }).click();
    await expect(x.getByTestId("call-status")).toHaveText(`On a call with ${Z}`, { timeout: 15_000 });
    const heard = (page: Page) =>
      page.evaluate(() => (window as unknown as { __softphone: { inbound(): Promise<{ bytes: number }> } }).__softphone.inbound().then((r) => r.bytes));
    for (const page of [x, z]) {
      const before = await heard(page);
      await expect.poll(() => heard(page), { timeout: 10_000 }).toBeGreaterThan(before + 1000);
    }
    await z.getByRole("button", { name: "Hang up" }).click();
    await expect(x.locator(".softphone")).toHaveAttribute("data-call-state", "acw", { timeout: 10_000 });

    // two CALL tickets: X to Y (hung up by Y after the transfer) and X to Z (hung up by Z)
    await setup.goto(`/call?number=${X}`);
    await expect(setup.getByRole("row", { name: new RegExp(`${X}.*${Y}`) })).toContainText(`Hung up (by ${Y})`);
    await expect(setup.getByRole("row", { name: new RegExp(`${X}.*${Z}`) })).toContainText(`Hung up (by ${Z})`);
  });
});
