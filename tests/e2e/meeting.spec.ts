// Video meetings between two Chromium contexts with fake camera and microphone. First without
// Janus (mesh): an agent starts a meeting from a conversation's panel with a one-time link for
// the customer, the customer (no account) joins through it, audio and video flow both ways
// (inbound-rtp bytes grow in getStats()), mute shows in the other's participant list; the link
// used again, a visitor without a link, and the link after the end are refused with a clear page;
// the conversation shows the start and the end with who took part. Then this spec starts Janus
// (Debian `janus`) on loopback and the same flows through it: a meeting started from the shell,
// an invited agent joins, media flows through the SFU.
import { test, expect, type Browser, type Page } from "@playwright/test";
import AxeBuilder from "@axe-core/playwright";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chooseLanguage, hydrated, login } from "./helpers";
import { E2E_JANUS_HTTP_PORT } from "../../playwright.config";
import { janusPresent, missingJanusMessage, startMediaServers, type MediaServers } from "../../plugins/meeting/janus/servers";

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"],
  },
});

async function newPage(browser: Browser, baseURL: string) {
  const context = await browser.newContext({ permissions: ["microphone", "camera"] });
  await chooseLanguage(context, baseURL);
  return context.newPage();
}

type Inbound = { audio: { bytes: number; packets: number }; video: { bytes: number; packets: number } };
const inbound = (page: Page) => page.evaluate(() => (window as unknown as { __meeting: { inbound(): Promise<Inbound> } }).__meeting.inbound());

async function expectAccessible(page: Page) {
  const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

/** Audio and video bytes received keep growing (sampled twice, a second apart). */
async function expectMediaFlowing(page: Page) {
  await expect.poll(async () => (await inbound(page)).video.bytes, { timeout: 30_000 }).toBeGreaterThan(20_000);
  const before = await inbound(page);
  await page.waitForTimeout(1500);
  const after = await inbound(page);
  expect(after.audio.bytes).toBeGreaterThan(before.audio.bytes);
  expect(after.video.bytes).toBeGreaterThan(before.video.bytes);
  expect(after.audio.packets).toBeGreaterThan(before.audio.packets);
}

async function joinWithMedia(page: Page) {
  await hydrated(page);
  await page.getByRole("button", { name: "Join with camera and microphone" }).click();
  await expect(page.getByRole("toolbar", { name: "Meeting controls" })).toBeVisible({ timeout: 15_000 });
}

/** Janus's media ports in this spec (browsers' own ports are ephemeral, far above). */
const JANUS_RTP = [21000 + (Number(process.env.E2E_PORT || 3210) % 100) * 50, 21049 + (Number(process.env.E2E_PORT || 3210) % 100) * 50];

test.describe("video meetings", () => {
  test("mesh without Janus: from a conversation, a customer's one-time link, media both ways, refusals, logged in the conversation", async ({
    browser,
    baseURL,
  }) => {
    test.setTimeout(120_000);
    const agent = await newPage(browser, baseURL!);
    await login(agent, "admin", "admin");
    await agent.goto("/ticket");
    const ticket = await agent.locator(".ticket-item").first().getAttribute("data-ticket");
    await agent.goto(`/ticket/${ticket}`);
    const panel = agent.locator('[data-panel="meeting"]');
    await expect(panel.getByRole("heading", { name: "Video meeting" })).toBeVisible();
    await panel.getByRole("link", { name: "Start a video meeting" }).click();
    await expect(agent.getByRole("heading", { name: `Start a video meeting for conversation #${ticket}` })).toBeVisible();
    await hydrated(agent);
    await expectAccessible(agent);
    await agent.getByLabel("Title (optional)").fill("Parcel walkthrough");
    await agent.getByRole("checkbox", { name: /with a one-time link/ }).check();
    await agent.getByRole("button", { name: "Start meeting" }).click();
    const guestLink = await agent.getByTestId("meeting-guest-link").inputValue();
    await agent.getByRole("link", { name: "Join the meeting" }).click();
    await expect(agent.getByRole("heading", { level: 1, name: "Parcel walkthrough" })).toBeVisible();
    await expect(agent.getByTestId("meeting-turn")).toHaveText("TURN is not configured: people behind strict firewalls may not be able to connect.");
    const meetingUrl = agent.url();

    // the customer: no account, the link
    const customer = await newPage(browser, baseURL!);
    await customer.goto(guestLink);
    await customer.getByRole("button", { name: /^Join as / }).click();
    await expect(customer.getByRole("heading", { level: 1, name: "Parcel walkthrough" })).toBeVisible();
    await expect(customer.getByTestId("meeting-status")).toHaveText(/in this meeting\./);

    await joinWithMedia(agent);
    await joinWithMedia(customer);
    await expect(agent.getByTestId("meeting-status")).toHaveText("You are in the meeting (direct connections, at most 3 people).");
    await expect(agent.getByTestId("meeting-people").getByRole("listitem")).toHaveCount(2);
    await expectAccessible(agent);
    await expectMediaFlowing(agent);
    await expectMediaFlowing(customer);

    // mute: the other's list says so; keyboard: the button is reached and pressed with the keyboard
    const mute = customer.getByRole("button", { name: "Mute" });
    await mute.focus();
    await customer.keyboard.press("Enter");
    await expect(customer.getByRole("button", { name: "Unmute" })).toHaveAttribute("aria-pressed", "true");
    await expect(agent.getByTestId("meeting-people")).toContainText("(muted)");

    // the link again, in another browser; someone with no link at all
    const other = await newPage(browser, baseURL!);
    await other.goto(guestLink);
    await expect(other.getByRole("heading", { level: 1 })).toHaveText("This invitation link has already been used.");
    await other.goto(meetingUrl);
    await expect(other.getByRole("heading", { level: 1 })).toHaveText("You are not invited to this meeting.");
    await expectAccessible(other);

    // the end: everyone's page says so, the link no longer works, the conversation tells the story
    await agent.getByRole("button", { name: "End the meeting for everyone" }).click();
    await expect(agent.getByRole("heading", { level: 1 })).toHaveText("This meeting has ended.");
    await expect(customer.getByTestId("meeting-status")).toHaveText("This meeting has ended.");
    await other.goto(guestLink);
    await expect(other.getByRole("heading", { level: 1 })).toHaveText("This meeting has ended.");
    await agent.goto(`/ticket/${ticket}`);
    await expect(agent.getByText(/started a video meeting: \/meeting\//).last()).toBeVisible();
    await expect(agent.getByText(/The video meeting ended after \d+ min\. Participants: .+, .+/).last()).toBeVisible();
    await Promise.all([agent, customer, other].map((p) => p.context().close()));
  });

  test.describe("through Janus", () => {
    test.skip(!janusPresent(), `Janus is not installed: ${missingJanusMessage()}`);
    let servers: MediaServers;
    const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-e2e-janus-"));
    test.beforeAll(async () => {
      servers = await startMediaServers({ runDir, janusPort: E2E_JANUS_HTTP_PORT, rtpPortMin: JANUS_RTP[0], rtpPortMax: JANUS_RTP[1] });
    });
    test.afterAll(async () => {
      await servers?.stop();
      fs.rmSync(runDir, { recursive: true, force: true });
    });

    test("a meeting started from the shell, an invited agent joins, media flows through the SFU", async ({ browser, baseURL }) => {
      test.setTimeout(120_000);
      const host = await newPage(browser, baseURL!);
      await login(host, "admin", "admin");
      await host.goto("/meetings");
      await host.getByLabel("Title (optional)").fill("Janus stand-up");
      await host
        .getByRole("group", { name: "Invite agents" })
        .getByRole("checkbox", { name: /\(agent\)$/ })
        .check();
      await host.getByRole("button", { name: "Start meeting" }).click();
      await host.getByRole("link", { name: "Join the meeting" }).click();
      await joinWithMedia(host);
      await expect(host.getByTestId("meeting-status")).toHaveText("You are in the meeting (through the media server).");

      const guest = await newPage(browser, baseURL!);
      await login(guest, "agent", "agent");
      await guest.goto("/meetings");
      await guest.getByRole("link", { name: "Janus stand-up" }).click();
      await joinWithMedia(guest);
      await expect(guest.getByTestId("meeting-status")).toHaveText("You are in the meeting (through the media server).");
      await expectMediaFlowing(host);
      await expectMediaFlowing(guest);
      // through Janus: one connection publishing, one receiving the other's feed, each with its far
      // end on a port of the RTP range this spec gave Janus
      const ports = await host.evaluate(() =>
        (window as unknown as { __meeting: { connections(): RTCPeerConnection[] } }).__meeting
          .connections()
          .map((pc) => Number(/a=candidate:\S+ 1 udp \d+ \S+ (\d+) typ host/.exec(pc.remoteDescription?.sdp ?? "")?.[1])),
      );
      expect(ports).toHaveLength(2);
      for (const port of ports) expect(port >= JANUS_RTP[0] && port <= JANUS_RTP[1]).toBe(true);
      await guest.getByRole("button", { name: "Leave" }).click();
      await expect(guest.getByTestId("meeting-status")).toHaveText("You left the meeting.");
      await expect(host.getByTestId("meeting-people").getByRole("listitem")).toHaveCount(1);
      await Promise.all([host, guest].map((p) => p.context().close()));
    });
  });
});
