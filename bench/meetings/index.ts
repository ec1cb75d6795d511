// How many people one meeting holds through Janus on this machine before the media drops.
//   npm run bench:meetings          (needs Debian `janus`; starts it on loopback by itself)
// One Janus (plugins/meeting/janus/servers.ts) and one headless Chromium with fake camera and
// microphone; each participant is a page that publishes once to the meeting's VideoRoom and
// receives every other participant's feed, signalled exactly as the product's server does it
// (plugins/meeting/janus/client.server.ts: join, publish, subscribe, start). Participants are
// added one at a time; after each, the media settles and is measured over WINDOW_S seconds:
//   feeds      received feeds (n x (n-1)) and how many of them carry video (> 30 kbit/s)
//   video kbps the median and the lowest video bitrate of a received feed
//   lost       packets lost over all received feeds, in the window
//   janus cpu  Janus's CPU (percent of one core), chromium cpu the browser's (all its processes)
// The run stops at MAX participants (MEETING_BENCH_MAX, default 16) or once a step drops media:
// a feed under 30 kbit/s, or the lowest feed under a third of the two-person median.
// Video is 320x240 at 15 fps (a gallery tile), audio Opus; the browser, not Janus, is what a
// two-core machine runs out of first: both CPU figures are printed for that reason.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { chromium, type Page } from "@playwright/test";
import { janusPresent, missingJanusMessage, startMediaServers } from "../../plugins/meeting/janus/servers";
import { JanusClient } from "../../plugins/meeting/janus/client.server";
import { freePort } from "../../plugins/calls/sip/servers";

const MAX = Number(process.env.MEETING_BENCH_MAX || 16);
const WINDOW_S = Number(process.env.MEETING_BENCH_WINDOW || 5);
const SETTLE_MS = 4000;
const ROOM = 790_000_001;

if (!janusPresent()) {
  console.error(missingJanusMessage());
  process.exit(1);
}

const cpuSeconds = (pid: number) => {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};
/** A process and everything under it. */
function tree(root: number) {
  const parents = new Map<number, number>();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1].split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // gone
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parents) if (ppid === out[i]) out.push(pid);
  return out;
}
const treeCpu = (root: number) => tree(root).reduce((sum, pid) => sum + cpuSeconds(pid), 0);

// the participants' page: a secure context (localhost) with the WebRTC side of a participant
const PAGE = `<!doctype html><meta charset="utf-8"><title>participant</title><script>
const feeds = new Map();
let publisher;
const gathered = (pc) => pc.iceGatheringState === "complete" ? Promise.resolve() : new Promise((r) => { const t = setTimeout(r, 5000); pc.addEventListener("icegatheringstatechange", () => { if (pc.iceGatheringState === "complete") { clearTimeout(t); r(); } }); });
window.publish = async () => {
  const media = await navigator.mediaDevices.getUserMedia({ audio: true, video: { width: 320, height: 240, frameRate: 15 } });
  publisher = new RTCPeerConnection();
  for (const t of media.getTracks()) publisher.addTransceiver(t, { direction: "sendonly", streams: [media] });
  await publisher.setLocalDescription(await publisher.createOffer());
  await gathered(publisher);
  return publisher.localDescription.sdp;
};
window.published = (sdp) => publisher.setRemoteDescription({ type: "answer", sdp });
window.receive = async (feed, sdp) => {
  const pc = new RTCPeerConnection();
  feeds.set(feed, pc);
  await pc.setRemoteDescription({ type: "offer", sdp });
  await pc.setLocalDescription(await pc.createAnswer());
  await gathered(pc);
  return pc.localDescription.sdp;
};
window.counters = async () => {
  const out = [];
  for (const [feed, pc] of feeds) {
    const c = { feed, video: 0, audio: 0, lost: 0 };
    (await pc.getStats()).forEach((s) => { if (s.type === "inbound-rtp") { c[s.kind] += s.bytesReceived || 0; c.lost += s.packetsLost || 0; } });
    out.push(c);
  }
  return out;
};
</script>`;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

async function main() {
  const site = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(PAGE));
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", r));
  const siteUrl = `http://localhost:${(site.address() as AddressInfo).port}/`;
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-janus-"));
  const servers = await startMediaServers({ runDir, janusPort: await freePort() });
  const janusPid = servers.pids()[0];
  const browserServer = await chromium.launchServer({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--use-fake-device-for-media-stream",
      "--use-fake-ui-for-media-stream",
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
  const browserPid = browserServer.process().pid!;
  const browser = await chromium.connect(browserServer.wsEndpoint());
  const context = await browser.newContext({ permissions: ["camera", "microphone"] });
  const janus = new JanusClient(servers.janusUrl, 30_000);

  console.log(
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model.trim()}, load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  console.log(`Janus ${servers.janusUrl}; video 320x240@15 fps + Opus per participant; window ${WINDOW_S} s after ${SETTLE_MS / 1000} s settling`);
  const created = await janus.attach();
  await janus.request(created, { request: "create", room: ROOM, publishers: 64, bitrate: 512_000, audiocodec: "opus", videocodec: "vp8" });

  const people: { id: number; page: Page }[] = [];
  const subscribe = async (viewer: { id: number; page: Page }, source: number) => {
    const handle = await janus.attach();
    for (let attempt = 1; ; attempt++) {
      try {
        const { jsep } = await janus.request(handle, { request: "join", ptype: "subscriber", room: ROOM, streams: [{ feed: source }] });
        const answer = await viewer.page.evaluate(([f, sdp]) => (window as unknown as { receive(f: number, s: string): Promise<string> }).receive(f, sdp), [
          source,
          jsep!.sdp,
        ] as const);
        await janus.request(handle, { request: "start" }, { type: "answer", sdp: answer, trickle: false });
        return;
      } catch (error) {
        if (attempt >= 120 || !/No such feed/.test((error as Error).message)) throw error;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };

  console.log("people  feeds  with-video  video kbps (median / lowest)  audio kbps (median)  lost  janus cpu  chromium cpu");
  let baseline = NaN;
  let held = 1;
  let dropped = "";
  for (let n = 1; n <= MAX; n++) {
    const page = await context.newPage();
    await page.goto(siteUrl);
    const me = { id: n, page };
    const handle = await janus.attach();
    await janus.request(handle, { request: "join", ptype: "publisher", room: ROOM, id: n, display: `p${n}` });
    const offer = await page.evaluate(() => (window as unknown as { publish(): Promise<string> }).publish());
    const { jsep } = await janus.request(handle, { request: "publish", audio: true, video: true }, { type: "offer", sdp: offer, trickle: false });
    await page.evaluate((sdp) => (window as unknown as { published(s: string): Promise<void> }).published(sdp), jsep!.sdp);
    for (const other of people) {
      await subscribe(me, other.id);
      await subscribe(other, n);
    }
    people.push(me);
    if (n === 1) continue;
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    type Counter = { feed: number; video: number; audio: number; lost: number };
    const read = () => Promise.all(people.map((p) => p.page.evaluate(() => (window as unknown as { counters(): Promise<Counter[]> }).counters())));
    const [j0, c0, before] = [cpuSeconds(janusPid), treeCpu(browserPid), await read()];
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
    const [after, j1, c1] = [await read(), cpuSeconds(janusPid), treeCpu(browserPid)];
    const seconds = (Date.now() - t0) / 1000;
    const video: number[] = [];
    const audio: number[] = [];
    let lost = 0;
    after.forEach((feeds, i) =>
      feeds.forEach((f) => {
        const b = before[i].find((x) => x.feed === f.feed) ?? { video: 0, audio: 0, lost: 0 };
        video.push(((f.video - b.video) * 8) / 1000 / seconds);
        audio.push(((f.audio - b.audio) * 8) / 1000 / seconds);
        lost += f.lost - b.lost;
      }),
    );
    const flowing = video.filter((v) => v > 30).length;
    const med = median(video);
    const low = Math.min(...video);
    if (n === 2) baseline = med;
    console.log(
      `${String(n).padStart(6)}  ${String(video.length).padStart(5)}  ${String(flowing).padStart(10)}  ${med.toFixed(0).padStart(14)} / ${low.toFixed(0).padEnd(12)}  ${median(audio).toFixed(0).padStart(19)}  ${String(lost).padStart(4)}  ${(((j1 - j0) / seconds) * 100).toFixed(0).padStart(8)}%  ${(((c1 - c0) / seconds) * 100).toFixed(0).padStart(11)}%`,
    );
    if (flowing < video.length || low < baseline / 3) {
      dropped =
        flowing < video.length
          ? `${video.length - flowing} of ${video.length} feeds under 30 kbit/s`
          : `lowest feed ${low.toFixed(0)} kbit/s, under a third of the two-person median ${baseline.toFixed(0)}`;
      break;
    }
    held = n;
  }
  console.log(
    dropped
      ? `media dropped at ${people.length} people (${dropped}): one meeting holds ${held} people through Janus on this machine`
      : `media held for all ${held} people (MEETING_BENCH_MAX=${MAX}): raise it to find the limit`,
  );
  await browser.close();
  await browserServer.close();
  await janus.close();
  await servers.stop();
  site.close();
  fs.rmSync(runDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
