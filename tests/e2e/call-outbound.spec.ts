// Outbound calls from the browser softphone (issue 18): an admin sets the outbound trunk and the
// call prefix on /call_config without JavaScript (a refusal keeps what was typed) and switches the
// call popup; an agent's softphone (WebRTC) calling an outside number with no trunk set up says so;
// with the trunk set up (sipp on loopback as the trunk, plain RTP) the call goes out to the
// prefixed number, is answered and hung up, and /call lists it as outbound to the number in E.164.
import { test, expect } from "@playwright/test";
import { axeViolations } from "./axe";
import { spawn } from "node:child_process";
import dgram from "node:dgram";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { login, hydrated } from "./helpers";
import { FAKE_MEDIA_LAUNCH, callerName, newAgent, newPage, runDigits } from "./softphone-agents";
import { E2E_SIP_WS_PORT } from "../../playwright.config";
import { missingBinariesMessage, sipBinariesPresent, startSipServers, type SipServers } from "../../plugins/calls/sip/servers";
import { sipHookSecret } from "../../plugins/calls/sip/hook-secret";
import { SIPP, sippPresent } from "../support/trunk-call";

const present = sipBinariesPresent() && sippPresent();
if (!present && process.env.CI) throw new Error(`CI must run the outbound call test: ${missingBinariesMessage()} (and sipp)`);

const stamp = Date.now().toString(36);
const digits = runDigits();
const agent = { username: `sipo-${stamp}`, number: `6${digits}1` };

async function freeUdpPort() {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const port = socket.address().port;
  socket.close();
  return port;
}

test.use({ launchOptions: FAKE_MEDIA_LAUNCH });

test.describe("an agent's outbound call through the trunk", () => {
  test.skip(!present, `Kamailio or sipp is not installed: ${missingBinariesMessage()}`);
  let servers: SipServers;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-e2e-outbound-"));

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

  test("no trunk: the softphone says so; the trunk and prefix set without JavaScript: the call goes out prefixed and is an outbound CALL", async ({
    browser,
    baseURL,
  }) => {
    test.setTimeout(240_000);
    const setup = await newPage(browser, baseURL!, true);
    await login(setup, "admin", "admin");
    const phone = await newAgent(setup, browser, baseURL!, agent.username);

    const admin = await newPage(browser, baseURL!, false);
    await login(admin, "admin", "admin");
    await admin.goto("/call_config");
    const sip = admin.locator("#sip-form");
    await sip.getByLabel("Agent", { exact: true }).selectOption({ label: `${callerName(agent.username)} (${agent.username})` });
    await sip.getByLabel("Extension").fill(agent.number);
    await sip.getByLabel("SIP password").fill(`sip-${agent.username}`);
    await sip.getByRole("button", { name: "Save" }).click();
    await expect(admin.getByRole("status")).toHaveText("SIP account saved.");

    // the call popup switch, without JavaScript
    const popup = admin.locator("#popup-form");
    await popup.getByLabel("Show agents a popup for each new call").check();
    await popup.getByRole("button", { name: "Save call popup" }).click();
    await expect(admin.getByRole("status")).toHaveText("Call popup saved.");
    await expect(admin.locator("#popup-form").getByLabel("Show agents a popup for each new call")).toBeChecked();
    // and off again (the agent's call below is a new CALL ticket: no popup over the softphone)
    await admin.locator("#popup-form").getByLabel("Show agents a popup for each new call").uncheck();
    await admin.locator("#popup-form").getByRole("button", { name: "Save call popup" }).click();
    await expect(admin.getByRole("status")).toHaveText("Call popup saved.");
    await expect(admin.locator("#popup-form").getByLabel("Show agents a popup for each new call")).not.toBeChecked();

    // no trunk yet: the agent's call to an outside number is refused, and the softphone says why
    await phone.goto("/");
    await hydrated(phone);
    await expect(phone.getByTestId("sip-banner")).toHaveText(/Connected to call server\./, { timeout: 15_000 });
    await phone.getByLabel("Number or extension").fill("+60312345678");
    await phone.getByRole("button", { name: "Call", exact: true }).click();
    await expect(phone.getByTestId("call-failed")).toHaveText(
      "Calls to outside numbers are not set up. Please ask your administrator to set the outbound trunk on Call settings.",
      { timeout: 15_000 },
    );

    // sipp as the trunk: answers one call with plain RTP, keeps every message it saw
    const trunkPort = await freeUdpPort();
    const messages = path.join(runDir, "trunk-messages.log");
    const sipp = spawn(
      SIPP,
      [
        "-sf",
        path.resolve("tests/support/trunk-callee.xml"),
        "-i",
        "127.0.0.1",
        "-p",
        String(trunkPort),
        "-mp",
        String(await freeUdpPort()),
        "-m",
        "1",
        "-nostdin",
        "-timeout",
        "60s",
        "-trace_msg",
        "-message_file",
        messages,
      ],
      { cwd: runDir, stdio: "ignore" },
    );
    try {
      // a wrong address and prefix are refused, what was typed kept
      const trunk = admin.locator("#outbound-form");
      await trunk.getByLabel("Outbound trunk").fill("sip.example.com:99999");
      await trunk.getByLabel("Call prefix").fill("9#");
      await trunk.getByRole("button", { name: "Save outbound calls" }).click();
      await expect(admin.getByText("Please check the trunk address: host:port, for example sip.example.com:5060.")).toBeVisible();
      await expect(admin.getByText("The call prefix is up to 10 digits and may start with +.")).toBeVisible();
      await expect(admin.locator("#outbound-form").getByLabel("Outbound trunk")).toHaveValue("sip.example.com:99999");
      await expect(admin.locator("#outbound-form").getByLabel("Call prefix")).toHaveValue("9#");
      await admin.locator("#outbound-form").getByLabel("Outbound trunk").fill(`127.0.0.1:${trunkPort}`);
      await admin.locator("#outbound-form").getByLabel("Call prefix").fill("9");
      await admin.locator("#outbound-form").getByRole("button", { name: "Save outbound calls" }).click();
      await expect(admin.getByRole("status")).toHaveText("Outbound calls saved.");
      await expect(admin.getByText(`Agents' calls to outside numbers go out through 127.0.0.1:${trunkPort}.`)).toBeVisible();

      // the page passes axe with its new forms (axe runs a script: JavaScript on)
      await setup.goto("/call_config");
      await hydrated(setup);
      expect(await axeViolations(setup)).toEqual([]);

      // the same call now goes out to the trunk, is answered, and hung up by the agent
      await phone.getByLabel("Number or extension").fill("+60312345678");
      await phone.getByRole("button", { name: "Call", exact: true }).click();
      await expect(phone.getByTestId("call-status")).toHaveText("On a call with +60312345678", { timeout: 15_000 });
      await expect(phone.getByTestId("call-failed")).toHaveCount(0);
      await phone.getByRole("button", { name: "Hang up" }).click();
      await expect.poll(() => sipp.exitCode, { timeout: 15_000 }).toBe(0);
    } finally {
      if (sipp.exitCode === null) sipp.kill("SIGTERM");
    }
    const seen = fs.readFileSync(messages, "utf8");
    expect(seen).toMatch(new RegExp(`INVITE sip:960312345678@127\\.0\\.0\\.1:${trunkPort} SIP/2\\.0`));
    // the trunk's leg is plain RTP: no ICE, no DTLS
    expect(seen).not.toMatch(/a=ice-ufrag|a=fingerprint/);

    // the CALL ticket: outbound, to the number in E.164
    await admin.goto("/call?direction=outbound");
    await expect(admin.getByRole("row", { name: new RegExp(`${agent.number}.*\\+60312345678`) })).toContainText("Outbound");

    // outbound calls off again (other specs share the workspace)
    await admin.goto("/call_config");
    await admin.locator("#outbound-form").getByLabel("Outbound trunk").fill("");
    await admin.locator("#outbound-form").getByLabel("Call prefix").fill("");
    await admin.locator("#outbound-form").getByRole("button", { name: "Save outbound calls" }).click();
    await expect(admin.getByText("No outbound trunk is set up: agents can call extensions only.")).toBeVisible();
    for (const page of [setup, phone, admin]) await page.context().close();
  });
});
