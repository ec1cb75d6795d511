// Video meetings between two Chromium contexts with fake camera and microphone. First without
// Janus (mesh): an agent starts a meeting from a conversation's panel with a one-time link for
// the customer, the customer (no account) joins through it, audio and video flow both ways
// (inbound-rtp bytes grow in getStats()), mute shows in the other's participant list; the link
// used again, a visitor without a link, and the link after the end are refused with a clear page;
// the conversation shows the start and the end with who took part. Then this spec starts Janus
// (Debian `janus`) on loopback and the same flows through it: a meeting started from the shell,
// an invited agent joins, media flows through the SFU.
import { test, expect, type Browser, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ChildProcess } from "node:child_process";
import { chooseLanguage, hydrated, login, PASSWORD } from "./helpers";
import { startServer, stopServer, waitHealthy } from "../support/server-process";
import { E2E_JANUS_HTTP_PORT } from "../../playwright.config";
import {
  coturnPresent,
  janusPresent,
  missingCoturnMessage,
  missingJanusMessage,
  startMediaServers,
  type MediaServers,
} from "../../plugins/meeting/janus/servers";

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
      // getDisplayMedia picks the (fake) screen without a picker
      "--auto-select-desktop-capture-source=Entire screen",
    ],
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
  expect(await axeViolations(page)).toEqual([]);
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

type SignalStep = { at: number; step: "description" | "candidate" | "gathered"; to: string };

/** The page sent its description, then its first ICE candidate, before its gathering was complete (trickle ICE). */
async function expectTrickled(page: Page, to: string) {
  await expect
    .poll(() =>
      page.evaluate(
        (to) => (window as unknown as { __meeting: { signalLog: SignalStep[] } }).__meeting.signalLog.filter((s) => s.to.startsWith(to)).length,
        to,
      ),
    )
    .toBeGreaterThan(2);
  const log = await page.evaluate(
    (to) => (window as unknown as { __meeting: { signalLog: SignalStep[] } }).__meeting.signalLog.filter((s) => s.to.startsWith(to)),
    to,
  );
  const first = (step: SignalStep["step"]) => log.findIndex((s) => s.step === step);
  expect(first("description")).toBe(0);
  expect(first("candidate")).toBeGreaterThan(0);
  if (first("gathered") >= 0) expect(first("candidate")).toBeLessThan(first("gathered"));
}

/** The video frames `receiver` gets, by size (the largest of its connections' inbound video). */
const receivedFrame = (receiver: Page) =>
  receiver.evaluate(async () => {
    let frame = { width: 0, height: 0, frames: 0 };
    for (const pc of (window as unknown as { __meeting: { connections(): RTCPeerConnection[] } }).__meeting.connections())
      (await pc.getStats()).forEach((s: { type: string; kind?: string; frameWidth?: number; frameHeight?: number; framesDecoded?: number }) => {
        if (s.type === "inbound-rtp" && s.kind === "video" && (s.framesDecoded ?? 0) > frame.frames)
          frame = { width: s.frameWidth ?? 0, height: s.frameHeight ?? 0, frames: s.framesDecoded ?? 0 };
      });
    return frame;
  });

/**
 * `sharer` shares its (fake) screen: `receiver` decodes frames shaped like the screen (16:9), not
 * the camera (4:3), and keeps getting them; then the camera again. Shapes, not sizes: WebRTC may
 * scale a busy machine's video down.
 */
async function shareScreen(sharer: Page, receiver: Page) {
  const ratio = async () => {
    const f = await receivedFrame(receiver);
    return f.height ? Math.round((f.width / f.height) * 100) / 100 : 0;
  };
  await expect.poll(ratio, { timeout: 20_000 }).toBe(1.33);
  await sharer.getByRole("button", { name: "Share screen" }).click();
  await expect(sharer.getByRole("button", { name: "Stop sharing" })).toHaveAttribute("aria-pressed", "true");
  const sent = await sharer.evaluate(
    () =>
      (window as unknown as { __meeting: { connections(): RTCPeerConnection[] } }).__meeting
        .connections()
        .flatMap((pc) => pc.getSenders())
        .find((s) => s.track?.kind === "video")?.track?.label,
  );
  expect(sent).toMatch(/^screen:/);
  await expect.poll(ratio, { timeout: 20_000 }).toBe(1.78);
  const before = await receivedFrame(receiver);
  await receiver.waitForTimeout(1000);
  expect((await receivedFrame(receiver)).frames).toBeGreaterThan(before.frames);
  await sharer.getByRole("button", { name: "Stop sharing" }).click();
  await expect.poll(ratio, { timeout: 20_000 }).toBe(1.33);
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
    test.setTimeout(240_000);
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
    // trickle: each side's description went first, its first candidate after it and before its
    // gathering was complete (the customer offered, the agent answered)
    await expectTrickled(customer, "peer:");
    await expectTrickled(agent, "peer:");

    // the customer shares the screen: the agent receives it in place of the camera
    await shareScreen(customer, agent);

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

    test("three people direct, a fourth moves the meeting to Janus without anyone leaving; ICE trickled; media through the SFU", async ({
      browser,
      baseURL,
    }) => {
      test.setTimeout(240_000);
      const host = await newPage(browser, baseURL!);
      await login(host, "admin", "admin");
      // the invited agents sign in first: on a busy machine a sign-in is slow beside running media
      const others: Page[] = [];
      for (const username of ["agent", "agent2"]) {
        const page = await newPage(browser, baseURL!);
        await login(page, username, "agent");
        others.push(page);
      }
      await host.goto("/meetings");
      await host.getByLabel("Title (optional)").fill("Janus stand-up");
      const agents = host.getByRole("group", { name: "Invite agents" });
      await agents.getByRole("checkbox", { name: /\(agent\)$/ }).check();
      await agents.getByRole("checkbox", { name: /\(agent2\)$/ }).check();
      await host.getByRole("button", { name: "Start meeting" }).click();
      await host.getByRole("link", { name: "Join the meeting" }).click();
      // the fourth person will be a guest: the host makes a link on the meeting's page
      await host.getByLabel("Guest's name").fill("Gita Guest");
      await host.getByRole("button", { name: "Make a guest link" }).click();
      const guestLink = await host.getByLabel("Link for the guest (works once, on one browser)").inputValue();
      const meetingUrl = host.url();
      await joinWithMedia(host);
      const direct = "You are in the meeting (direct connections, at most 3 people).";
      await expect(host.getByTestId("meeting-status")).toHaveText(direct);

      for (const page of others) {
        await page.goto(meetingUrl);
        await joinWithMedia(page);
        await expect(page.getByTestId("meeting-status")).toHaveText(direct);
      }
      await expect(host.getByTestId("meeting-people").getByRole("listitem")).toHaveCount(3);

      // the fourth: the customer through the link; the meeting moves to Janus, the three stay in
      const customer = await newPage(browser, baseURL!);
      await customer.goto(guestLink);
      await customer.getByRole("button", { name: /^Join as / }).click();
      await joinWithMedia(customer);
      const sfu = "You are in the meeting (through the media server).";
      for (const page of [host, ...others, customer]) await expect(page.getByTestId("meeting-status")).toHaveText(sfu, { timeout: 30_000 });
      await expect(host.getByTestId("meeting-people").getByRole("listitem")).toHaveCount(4);
      await expectMediaFlowing(host);
      await expectMediaFlowing(customer);
      // through Janus: one connection publishing, one per other person's feed, each with its far
      // end on a port of the RTP range this spec gave Janus
      const ports = await host.evaluate(() =>
        (window as unknown as { __meeting: { connections(): RTCPeerConnection[] } }).__meeting
          .connections()
          .map((pc) => Number(/a=candidate:\S+ 1 udp \d+ \S+ (\d+) typ host/.exec(pc.remoteDescription?.sdp ?? "")?.[1])),
      );
      expect(ports).toHaveLength(4);
      for (const port of ports) expect(port >= JANUS_RTP[0] && port <= JANUS_RTP[1]).toBe(true);
      // trickle: the publisher's offer went to Janus at once, its first candidate after it and
      // before gathering was complete
      await expectTrickled(host, "janus");
      await expectTrickled(customer, "janus");

      await customer.getByRole("button", { name: "Leave" }).click();
      await expect(customer.getByTestId("meeting-status")).toHaveText("You left the meeting.");
      await expect(host.getByTestId("meeting-people").getByRole("listitem")).toHaveCount(3);
      await expect(host.getByTestId("meeting-status")).toHaveText(sfu);
      await Promise.all([host, ...others, customer].map((p) => p.context().close()));
    });
  });

  test.describe("through a TURN relay only", () => {
    test.skip(!janusPresent() || !coturnPresent(), `${missingJanusMessage()}; ${missingCoturnMessage()}`);
    // a server of its own: TURN configured (coturn on loopback, started here) and MEETING_ICE_POLICY
    // "relay", so browsers may use no address but the relay's
    const port = Number(process.env.E2E_PORT || 3210) + 88;
    const origin = `http://localhost:${port}`;
    const slot = (Number(process.env.E2E_PORT || 3210) % 100) * 50;
    const relayPorts = [30_000 + slot, 30_049 + slot];
    const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-e2e-turn-"));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-e2e-turn-data-"));
    const serverLog = path.join(dataDir, "server.log");
    let servers: MediaServers;
    let node: ChildProcess;
    test.beforeAll(async () => {
      test.setTimeout(240_000);
      const secret = "e2e-turn-secret";
      servers = await startMediaServers({
        runDir,
        janusPort: port + 3,
        rtpPortMin: 35_000 + slot,
        rtpPortMax: 35_049 + slot,
        turn: { port: port + 1, secret, relayMin: relayPorts[0], relayMax: relayPorts[1] },
      });
      node = startServer(
        {
          PORT: String(port),
          DATA_DIR: dataDir,
          DATABASE_URL: "",
          SESSION_SECRET: "e2e-turn",
          NODE_ENV: "test",
          SMTP_LISTEN_PORT: String(port + 2),
          JANUS_URL: "",
          TURN_URLS: servers.turnUrl!,
          TURN_SECRET: secret,
          MEETING_ICE_POLICY: "relay",
          // sockets' connects and disconnects with their reasons, for a failure's attachment
          LOG_LEVEL: "debug",
        },
        fs.openSync(serverLog, "w"),
      );
      await waitHealthy(origin, 200_000);
      // a first sign-in warms the fresh node (its first password check and pages are slow on a busy machine)
      await fetch(`${origin}/?index`, {
        method: "POST",
        body: new URLSearchParams({ intent: "login", username: "agent", password: PASSWORD, type: "agent" }),
        redirect: "manual",
      });
    });
    // a failure carries this server's log and coturn's (the main server's log is not this one)
    test.afterEach(async ({}, testInfo) => {
      if (testInfo.status === testInfo.expectedStatus) return;
      await testInfo.attach("server.log", { path: serverLog, contentType: "text/plain" });
      await testInfo.attach("coturn-janus.log", { body: servers?.logs() ?? "", contentType: "text/plain" });
    });
    test.afterAll(async () => {
      if (node) await stopServer(node);
      await servers?.stop();
      for (const dir of [runDir, dataDir]) fs.rmSync(dir, { recursive: true, force: true });
    });

    test("every connection goes through coturn, candidates trickled, and media arrives on both sides", async ({ browser }) => {
      test.setTimeout(180_000);
      const host = await newPage(browser, origin);
      await login(host, "admin", "admin", PASSWORD, origin);
      // the invited agent signs in first: on a busy machine a sign-in is slow beside running media
      const guest = await newPage(browser, origin);
      await login(guest, "agent", "agent", PASSWORD, origin);
      await host.goto(`${origin}/meetings`);
      await host.getByLabel("Title (optional)").fill("Relayed");
      await host
        .getByRole("group", { name: "Invite agents" })
        .getByRole("checkbox", { name: /\(agent\)$/ })
        .check();
      await host.getByRole("button", { name: "Start meeting" }).click();
      await host.getByRole("link", { name: "Join the meeting" }).click();
      // the link is a client-side navigation: the meeting's address is the page's once its heading shows
      await expect(host.getByRole("heading", { level: 1, name: "Relayed" })).toBeVisible();
      const meetingUrl = host.url();
      expect(meetingUrl).toMatch(/\/meeting\/[^/]+$/);
      await expect(host.getByTestId("meeting-turn")).toHaveText("A TURN relay is configured: people behind firewalls can connect.");
      await joinWithMedia(host);
      await guest.goto(meetingUrl);
      await joinWithMedia(guest);
      await expect(host.getByTestId("meeting-people").getByRole("listitem")).toHaveCount(2);
      await expectMediaFlowing(host);
      await expectMediaFlowing(guest);
      for (const page of [host, guest]) {
        // the selected pair of each connection: both ends relay candidates, the local one on a
        // port of the relay range this spec gave coturn
        const pairs = await page.evaluate(async () => {
          const found: { local: string; remote: string; port: number }[] = [];
          for (const pc of (window as unknown as { __meeting: { connections(): RTCPeerConnection[] } }).__meeting.connections()) {
            const stats = await pc.getStats();
            let pairId = "";
            stats.forEach((s: { type: string; selectedCandidatePairId?: string }) => {
              if (s.type === "transport" && s.selectedCandidatePairId) pairId = s.selectedCandidatePairId;
            });
            const pair = stats.get(pairId) as { localCandidateId: string; remoteCandidateId: string } | undefined;
            const local = stats.get(pair?.localCandidateId ?? "");
            const remote = stats.get(pair?.remoteCandidateId ?? "");
            found.push({ local: local?.candidateType, remote: remote?.candidateType, port: Number(local?.port) });
          }
          return found;
        });
        expect(pairs.map((p) => `${p.local}/${p.remote}`)).toEqual(["relay/relay"]);
        expect(pairs[0].port).toBeGreaterThanOrEqual(relayPorts[0]);
        expect(pairs[0].port).toBeLessThanOrEqual(relayPorts[1]);
        await expectTrickled(page, "peer:");
      }
      await Promise.all([host, guest].map((p) => p.context().close()));
    });
  });
});
