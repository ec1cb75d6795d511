// A call from the SIP trunk to a DID, against the real call server: this spec starts Kamailio and
// rtpengine on loopback with the trunk at sipp's address (the product's hooks and voicemail at the
// e2e server). An admin gives a new agent a SIP account and sets up a DID ringing that agent for 8 s
// with voicemail on, on /call_config without JavaScript (a refusal keeps what was typed). The
// agent's softphone registers; sipp (the trunk's caller) calls the DID; the agent's incoming-call
// popup shows the caller's number; nobody answers; after the ring timeout the popup goes, the
// product's voicemail answers with the greeting and records the caller; the voicemail is on
// /voicemail with the caller, the DID, its duration and a player, and the file is served with range
// requests and plays in the browser. The call is on /call as inbound on the DID, ended by voicemail.
import { test, expect } from "@playwright/test";
import { axeViolations } from "./axe";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { login, hydrated } from "./helpers";
import { FAKE_MEDIA_LAUNCH, callerName, newAgent, newPage, runDigits } from "./softphone-agents";
import { E2E_SIP_WS_PORT, E2E_VOICEMAIL_SIP_PORT } from "../../playwright.config";
import { missingBinariesMessage, sipBinariesPresent, startSipServers, type SipServers } from "../../plugins/calls/sip/servers";
import { sipHookSecret } from "../../plugins/calls/sip/hook-secret";
import { sippPresent, spokenUlaw, trunkCall } from "../support/trunk-call";

const present = sipBinariesPresent() && sippPresent();
if (!present && process.env.CI) throw new Error(`CI must run the DID call test: ${missingBinariesMessage()} and sip-tester (sipp)`);

const stamp = Date.now().toString(36);
const digits = runDigits();
const agent = { username: `dida-${stamp}`, number: `6${digits}1` };
const did = `+603${digits}${String(Date.now()).slice(-4)}`;
const CALLER = "+60123456789";
// the trunk: sipp's own address, from the e2e port's range
const TRUNK_PORT = E2E_VOICEMAIL_SIP_PORT + 20;

test.use({ launchOptions: FAKE_MEDIA_LAUNCH });

test.describe("a call from the trunk on a DID", () => {
  test.skip(!present, `Kamailio or sipp is not installed: ${missingBinariesMessage()}`);
  let servers: SipServers;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-e2e-did-"));

  test.beforeAll(async ({ baseURL }) => {
    servers = await startSipServers({
      runDir,
      wsPort: E2E_SIP_WS_PORT,
      authUrl: `${baseURL!.replace("localhost", "127.0.0.1")}/hooks/sip/auth`,
      hookSecret: sipHookSecret({ SESSION_SECRET: "e2e-secret" }),
      trunk: `127.0.0.1:${TRUNK_PORT}`,
      voicemail: `127.0.0.1:${E2E_VOICEMAIL_SIP_PORT}`,
    });
  });
  test.afterAll(async () => {
    await servers?.stop();
    fs.rmSync(runDir, { recursive: true, force: true });
  });

  test("reaches the agent's popup, nobody answers, and the voicemail is on /voicemail and plays", async ({ browser, baseURL }) => {
    test.setTimeout(150_000);
    const setup = await newPage(browser, baseURL!, true);
    await login(setup, "admin", "admin");
    const phone = await newAgent(setup, browser, baseURL!, agent.username);

    // the agent's SIP account and the DID, set up by an admin with JavaScript off
    const admin = await newPage(browser, baseURL!, false);
    await login(admin, "admin", "admin");
    await admin.goto("/call_config");
    const sip = admin.locator("#sip-form");
    await sip.getByLabel("Agent", { exact: true }).selectOption({ label: `${callerName(agent.username)} (${agent.username})` });
    await sip.getByLabel("Extension").fill(agent.number);
    await sip.getByLabel("SIP password").fill(`sip-${agent.username}`);
    await sip.getByRole("button", { name: "Save" }).click();
    await expect(admin.getByRole("status")).toHaveText("SIP account saved.");

    const form = admin.locator("#did-form");
    await expect(admin.getByText(/Numbers the trunk delivers calls to/)).toBeVisible();
    await form.getByLabel("DID number").fill(did);
    await form.getByLabel(new RegExp(`${callerName(agent.username)} \\(${agent.username}\\), extension ${agent.number}`)).check();
    await form.getByLabel("Ring timeout (seconds)").fill("2");
    await form.getByLabel("Voicemail greeting").fill("Please leave a message.");
    await form.getByRole("button", { name: "Save DID" }).click();
    await expect(admin.getByText("Ring timeout must be a whole number from 5 to 120.")).toBeVisible();
    await expect(form.getByLabel("DID number")).toHaveValue(did);
    await expect(form.getByLabel("Voicemail greeting")).toHaveValue("Please leave a message.");
    await form.getByLabel("Ring timeout (seconds)").fill("8");
    await form.getByLabel(new RegExp(`${callerName(agent.username)} \\(${agent.username}\\)`)).check();
    await form.getByRole("button", { name: "Save DID" }).click();
    await expect(admin.getByRole("status")).toHaveText("DID saved.");
    const row = admin.getByTestId(`did-${did}`);
    await expect(row).toContainText(agent.username);
    await expect(row).toContainText("8 s");
    await expect(row).toContainText("On");
    // the page with its DID list and form passes axe (JavaScript on, as axe needs)
    await setup.goto("/call_config");
    await hydrated(setup);
    expect(await axeViolations(setup)).toEqual([]);

    // the agent's softphone registers
    await phone.goto("/");
    await hydrated(phone);
    await expect(phone.getByTestId("sip-banner")).toHaveText(/Connected to call server\./, { timeout: 15_000 });

    // the trunk's caller dials the DID (as a trunk sends it: digits without +)
    const audio = spokenUlaw("hello this is a message for the support team please call me back", runDir);
    const started = Date.now();
    const caller = trunkCall({
      sip: `127.0.0.1:${servers.sipPort}`,
      did: did.slice(1),
      caller: CALLER,
      localPort: TRUNK_PORT,
      mediaPort: TRUNK_PORT + 2,
      talkMs: 7000,
      audio,
      workDir: runDir,
    });
    const popup = phone.getByRole("alertdialog");
    await expect(popup).toContainText(`Incoming call from ${CALLER}`, { timeout: 15_000 });
    await expect(popup.getByRole("button", { name: "Accept" })).toBeVisible();
    // while it rings, the call is on /call/ongoing as inbound on the DID
    await admin.goto("/call/ongoing");
    await expect(admin.getByRole("row", { name: new RegExp(CALLER.replace("+", "\\+")) })).toContainText("Ringing");
    // nobody answers: after the DID's 8 s the popup goes and the voicemail takes the call
    await expect(popup).toHaveCount(0, { timeout: 15_000 });
    expect(Date.now() - started).toBeGreaterThan(7000);
    const result = await caller.done;
    expect(result.code, `${result.output}\n${servers.logs().slice(-5000)}`).toBe(0);

    // the voicemail on /voicemail without JavaScript: caller, DID, duration, a player and a link
    await expect
      .poll(
        async () => {
          await admin.goto("/voicemail");
          return admin.getByRole("row", { name: new RegExp(CALLER.replace("+", "\\+")) }).count();
        },
        { timeout: 20_000, intervals: [1000] },
      )
      .toBe(1);
    const message = admin.getByRole("row", { name: new RegExp(CALLER.replace("+", "\\+")) });
    await expect(message).toContainText(did);
    const seconds = Number((/(\d+) s/.exec(await message.innerText()) ?? [])[1]);
    expect(seconds).toBeGreaterThanOrEqual(2);
    const src = await message.locator("audio").getAttribute("src");
    expect(src).toMatch(/^\/api\/proxy\/recordings\?id=\d+&type=voicemail$/);

    // served with range requests
    const whole = await admin.request.get(src!);
    expect(whole.status()).toBe(200);
    expect(whole.headers()["accept-ranges"]).toBe("bytes");
    const size = Number(whole.headers()["content-length"]);
    expect(size).toBeGreaterThan(1000);
    const part = await admin.request.get(src!, { headers: { Range: "bytes=100-199" } });
    expect(part.status()).toBe(206);
    expect(part.headers()["content-range"]).toBe(`bytes 100-199/${size}`);
    expect((await part.body()).length).toBe(100);

    // and it plays in the browser's player
    await setup.goto("/voicemail");
    await hydrated(setup);
    const player = setup.getByRole("row", { name: new RegExp(CALLER.replace("+", "\\+")) }).locator("audio");
    const played = await player.evaluate(async (el: HTMLAudioElement) => {
      el.muted = true;
      await el.play();
      await new Promise((r) => setTimeout(r, 1500));
      return { time: el.currentTime, duration: el.duration, error: el.error?.code ?? null };
    });
    expect(played.error).toBeNull();
    expect(played.time).toBeGreaterThan(0.5);
    expect(played.duration).toBeGreaterThanOrEqual(2);

    // the CALL ticket: inbound on the DID, from the caller, ended by voicemail
    await admin.goto(`/call?did=${encodeURIComponent(did)}`);
    const call = admin.getByRole("row", { name: new RegExp(CALLER.replace("+", "\\+")) });
    await expect(call).toContainText("Inbound");
    await expect(call).toContainText("Voicemail");
  });

  test("a DID rings two agents at once; the one who answers talks with the caller and becomes the call's agent", async ({ browser, baseURL }) => {
    test.setTimeout(120_000);
    const admin = await newPage(browser, baseURL!, true);
    await login(admin, "admin", "admin");
    const answerer = { username: `didb-${stamp}`, number: `6${digits}2` };
    const other = { username: `didc-${stamp}`, number: `6${digits}3` };
    const phone = await newAgent(admin, browser, baseURL!, answerer.username);
    const otherPhone = await newAgent(admin, browser, baseURL!, other.username);
    await admin.goto("/call_config");
    const sip = admin.locator("#sip-form");
    for (const a of [answerer, other]) {
      await sip.getByLabel("Agent", { exact: true }).selectOption({ label: `${callerName(a.username)} (${a.username})` });
      await sip.getByLabel("Extension").fill(a.number);
      await sip.getByLabel("SIP password").fill(`sip-${a.username}`);
      await sip.getByRole("button", { name: "Save" }).click();
      await expect(admin.getByTestId(`sip-account-${a.number}`)).toContainText(a.username);
    }
    const sales = `${did.slice(0, -1)}${(Number(did.at(-1)) + 1) % 10}`;
    const form = admin.locator("#did-form");
    await form.getByLabel("DID number").fill(sales);
    for (const a of [answerer, other]) await form.getByLabel(new RegExp(`${callerName(a.username)} \\(${a.username}\\)`)).check();
    await form.getByRole("button", { name: "Save DID" }).click();
    await expect(admin.getByTestId(`did-${sales}`)).toContainText("20 s");

    for (const page of [phone, otherPhone]) {
      await page.goto("/");
      await hydrated(page);
      await expect(page.getByTestId("sip-banner")).toHaveText(/Connected to call server\./, { timeout: 15_000 });
    }
    const caller = trunkCall({
      sip: `127.0.0.1:${servers.sipPort}`,
      did: sales.slice(1),
      caller: CALLER,
      localPort: TRUNK_PORT,
      mediaPort: TRUNK_PORT + 2,
      talkMs: 6000,
      audio: spokenUlaw("hello can you hear me", runDir),
      workDir: runDir,
    });
    // both agents' phones ring at once; one answers, the other's stops ringing
    const popup = phone.getByRole("alertdialog");
    await expect(popup).toContainText(`Incoming call from ${CALLER}`, { timeout: 15_000 });
    await expect(otherPhone.getByRole("alertdialog")).toContainText(`Incoming call from ${CALLER}`);
    await popup.getByRole("button", { name: "Accept" }).click();
    await expect(otherPhone.getByRole("alertdialog")).toHaveCount(0, { timeout: 10_000 });
    await expect(phone.getByTestId("call-status")).toHaveText(`On a call with ${CALLER}`, { timeout: 10_000 });
    // the caller's voice reaches the agent's browser through rtpengine (plain RTP to DTLS-SRTP)
    const heard = () =>
      phone.evaluate(() => (window as unknown as { __softphone: { inbound(): Promise<{ bytes: number }> } }).__softphone.inbound().then((r) => r.bytes));
    const before = await heard();
    await expect.poll(heard, { timeout: 5_000 }).toBeGreaterThan(before + 1000);
    const result = await caller.done;
    expect(result.code, `${result.output}\n${servers.logs().slice(-5000)}`).toBe(0);

    await admin.goto(`/call?did=${encodeURIComponent(sales)}`);
    const row = admin.getByRole("row", { name: new RegExp(CALLER.replace("+", "\\+")) });
    await expect(row).toContainText("Inbound");
    await expect(row).toContainText(callerName(answerer.username));
    await expect(row).toContainText(`Hung up (by ${CALLER})`);
  });
});
