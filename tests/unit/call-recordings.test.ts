// Call recordings, voicemail and transcription, on both dialects: an answered call's end queues the
// recording job; the job reads rtpengine's pcap recording (made here as rtpengine writes it: raw IP
// packets, the caller's leg Opus from a sentence espeak-ng spoke, the callee's leg G.711) and its
// metadata, mixes both legs into one stereo Ogg Opus file in the product's storage and queues the
// transcription; PocketSphinx returns most of the sentence's words (the word error rate is printed);
// /api/proxy/recordings streams it to a reader (200, 206 with a range, 416 past the end) and answers
// 403 to a user who may not read the call; /voicemail lists voicemails for admins and view_voicemail
// only. The media part needs ffmpeg, espeak-ng and pocketsphinx (.ci/run installs them).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AppLoadContext } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { recordCallEvent } from "@plugins/calls/calls.server";
import { byteRange, RECORDING_JOB, runRecording } from "@plugins/calls/recording.server";
import { parsePocketsphinx, runTranscription, TRANSCRIBE_JOB, transcriptOf } from "@plugins/calls/transcription.server";
import { callPanels } from "@plugins/calls/panel.server";
import { oggPackets, opusSamples } from "@plugins/calls/media/ogg";
import { legsOf, readMetadata, readPcap } from "@plugins/calls/media/rtp";
import * as recordingsRoute from "@plugins/calls/routes/api.proxy.recordings";
import * as voicemailRoute from "@plugins/calls/routes/voicemail";

const SENTENCE = "i would like to check the status of my order";
const have = (bin: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${bin}`]);
    return true;
  } catch {
    return false;
  }
};
const mediaTools = ["ffmpeg", "espeak-ng", "pocketsphinx_continuous"].every(have);
if (!mediaTools && process.env.CI)
  throw new Error("ffmpeg, espeak-ng and pocketsphinx are needed (apt-get install ffmpeg espeak-ng pocketsphinx pocketsphinx-en-us)");

/** Word error rate: word-level edit distance over the reference's length. */
export function wordErrorRate(reference: string, hypothesis: string) {
  const r = reference.split(/\s+/).filter(Boolean);
  const h = hypothesis.split(/\s+/).filter(Boolean);
  const d = Array.from({ length: r.length + 1 }, (_, i) => Array.from({ length: h.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= r.length; i++)
    for (let j = 1; j <= h.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (r[i - 1] === h[j - 1] ? 0 : 1));
  return d[r.length][h.length] / r.length;
}

/** A pcap as rtpengine writes it (link type 101: raw IPv4/UDP around each RTP packet). */
function pcapOf(packets: { at: number; src: number; dst: number; pt: number; seq: number; ts: number; ssrc: number; payload: Buffer }[]) {
  const head = Buffer.alloc(24);
  head.writeUInt32LE(0xa1b2c3d4, 0);
  head.writeUInt16LE(2, 4);
  head.writeUInt16LE(4, 6);
  head.writeUInt32LE(65535, 16);
  head.writeUInt32LE(101, 20);
  const parts = [head];
  for (const p of packets) {
    const rtp = Buffer.alloc(12);
    rtp[0] = 0x80;
    rtp[1] = p.pt;
    rtp.writeUInt16BE(p.seq & 0xffff, 2);
    rtp.writeUInt32BE(p.ts >>> 0, 4);
    rtp.writeUInt32BE(p.ssrc, 8);
    const udp = Buffer.alloc(8);
    udp.writeUInt16BE(p.src, 0);
    udp.writeUInt16BE(p.dst, 2);
    udp.writeUInt16BE(8 + 12 + p.payload.length, 4);
    const ip = Buffer.alloc(20);
    ip[0] = 0x45;
    ip.writeUInt16BE(20 + 8 + 12 + p.payload.length, 2);
    ip[8] = 64;
    ip[9] = 17;
    Buffer.from([127, 0, 0, 1]).copy(ip, 12);
    Buffer.from([127, 0, 0, 1]).copy(ip, 16);
    const data = Buffer.concat([ip, udp, rtp, p.payload]);
    const rec = Buffer.alloc(16);
    rec.writeUInt32LE(Math.floor(p.at / 1000), 0);
    rec.writeUInt32LE(Math.round((p.at % 1000) * 1000), 4);
    rec.writeUInt32LE(data.length, 8);
    rec.writeUInt32LE(data.length, 12);
    parts.push(rec, data);
  }
  return Buffer.concat(parts);
}

const sdp = (port: number) =>
  `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${port} RTP/AVP 111 0 101\r\na=rtpmap:111 opus/48000/2\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:101 telephone-event/8000\r\na=sendrecv\r\n`;
const metadataText = (pcap: string) =>
  `${pcap}\n\n\nTimestamp started ms: 1\nSDP mode: offer\nSDP before RTP packet: 1\n\n${sdp(41000)}\nTimestamp started ms: 2\nSDP mode: answer\nSDP before RTP packet: 1\n\n${sdp(41020)}\ncall end time: x\n`;

/** rtpengine's files of a call: the caller speaks SENTENCE (Opus, to the answer's port 41020), the callee sends a quiet tone (PCMU, to the offer's port 41000). */
function writeRtpengineFiles(dir: string, sipCallId: string, startAt: number) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-rec-test-"));
  try {
    execFileSync("espeak-ng", ["-v", "en-us+klatt", "-s", "160", "-w", path.join(work, "s.wav"), SENTENCE]);
    execFileSync("ffmpeg", [
      "-loglevel",
      "error",
      "-y",
      "-i",
      path.join(work, "s.wav"),
      "-af",
      "adelay=1000,apad=pad_dur=1",
      "-ar",
      "48000",
      "-c:a",
      "libopus",
      "-b:a",
      "64k",
      "-frame_duration",
      "20",
      path.join(work, "s.ogg"),
    ]);
    execFileSync("ffmpeg", [
      "-loglevel",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=300:duration=3",
      "-af",
      "volume=0.05",
      "-ar",
      "8000",
      "-ac",
      "1",
      "-f",
      "mulaw",
      path.join(work, "tone.ul"),
    ]);
    const opus = oggPackets(fs.readFileSync(path.join(work, "s.ogg"))).slice(2);
    const tone = fs.readFileSync(path.join(work, "tone.ul"));
    const packets: Parameters<typeof pcapOf>[0] = [];
    let ts = 1000;
    opus.forEach((payload, i) => {
      packets.push({ at: startAt + i * 20, src: 40500, dst: 41020, pt: 111, seq: 100 + i, ts, ssrc: 0x1111, payload });
      ts += opusSamples(payload);
    });
    for (let i = 0; i * 160 < tone.length; i++)
      packets.push({
        at: startAt + 40 + i * 20,
        src: 40502,
        dst: 41000,
        pt: 0,
        seq: 65530 + i,
        ts: 0xfffff000 + i * 160,
        ssrc: 0x2222,
        payload: tone.subarray(i * 160, i * 160 + 160),
      });
    packets.sort((a, b) => a.at - b.at);
    const name = `${encodeURIComponent(sipCallId)}-0123456789abcdef`;
    fs.mkdirSync(path.join(dir, "pcaps"), { recursive: true });
    fs.mkdirSync(path.join(dir, "metadata"), { recursive: true });
    const pcap = path.join(dir, "pcaps", `${name}.pcap`);
    fs.writeFileSync(pcap, pcapOf(packets));
    fs.writeFileSync(path.join(dir, "metadata", `rtpengine-meta-${name}.txt`), metadataText(pcap));
    return { pcap, opusPackets: opus.length };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

type Fn = (args: { request: Request; context: AppLoadContext; params: Record<string, string> }) => unknown;
async function call(fn: Fn, request: Request) {
  try {
    return (await fn({ request, context: { clientIp: "192.0.2.10" } as unknown as AppLoadContext, params: {} })) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

describe("recording helpers", () => {
  it("reads a Range header as RFC 9110 says", () => {
    expect(byteRange(null, 100)).toBeNull();
    expect(byteRange("bytes=0-9", 100)).toEqual({ start: 0, end: 9 });
    expect(byteRange("bytes=90-", 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange("bytes=-10", 100)).toEqual({ start: 90, end: 99 });
    expect(byteRange("bytes=50-500", 100)).toEqual({ start: 50, end: 99 });
    expect(byteRange("bytes=100-", 100)).toBe("unsatisfiable");
    expect(byteRange("bytes=5-2", 100)).toBeNull();
    expect(byteRange("items=0-1", 100)).toBeNull();
  });

  it("reads PocketSphinx's timed output as utterances", () => {
    const out =
      "<s> 0.500 0.600 0.99\nhello 0.610 0.900 0.9\n<sil> 0.9 1.0 1\nworld(2) 1.010 1.400 0.8\n</s> 1.41 1.5 1\n<s> 3.000 3.1 1\n[NOISE] 3.1 3.2 1\nbye 3.2 3.5 1\n</s> 3.5 3.6 1\n";
    expect(parsePocketsphinx(out)).toEqual([
      { offsetMs: 500, text: "hello world" },
      { offsetMs: 3000, text: "bye" },
    ]);
  });
});

describe.each(DIALECTS)("call recordings, transcripts and voicemail (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let adminCookie: string;
  let agentCookie: string;
  let recDir: string;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    adminCookie = await sessionCookie().serialize((await createSession(admin.id)).token);
    agentCookie = await sessionCookie().serialize((await createSession(agent.id)).token);
    recDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-recordings-"));
  }, 60_000);
  afterAll(async () => {
    await t?.cleanup();
    if (recDir) fs.rmSync(recDir, { recursive: true, force: true });
  });

  it.skipIf(!mediaTools)(
    "turns rtpengine's recording into one file, transcribes each leg and streams it only to readers",
    async () => {
      const { db, schema } = t.handle;
      const sipCallId = `rec-${dialect}@omnidesk`;
      const t0 = Date.now() - 20_000;
      // an outside caller to an outside number: a call no agent's department reads
      await recordCallEvent({ event: "invite", call_id: sipCallId, from: "+60123456789", to: "+60198765432" }, t0);
      await recordCallEvent({ event: "answer", call_id: sipCallId }, t0 + 2000);
      const ended = await recordCallEvent({ event: "end", call_id: sipCallId, code: 200, by: "+60123456789" }, t0 + 8000);
      const jobs = await db
        .select()
        .from(schema.jobs)
        .where(eq(schema.jobs.key, `${RECORDING_JOB}:${ended!.id}`));
      expect(jobs).toHaveLength(1);

      // nothing written yet: the job waits for rtpengine
      await expect(runRecording({ callId: ended!.id }, t0 + 9000, recDir)).rejects.toMatchObject({ jobOutcome: "wait" });
      const { pcap, opusPackets } = writeRtpengineFiles(recDir, sipCallId, t0 + 2000);
      const legs = legsOf(
        readPcap(fs.readFileSync(pcap)),
        readMetadata(fs.readFileSync(path.join(recDir, "metadata", fs.readdirSync(path.join(recDir, "metadata"))[0]), "utf8")),
      );
      expect(legs.map((l) => [l.role, l.codec.name, l.packets.length])).toEqual([
        ["caller", "opus", opusPackets],
        ["callee", "pcmu", 150],
      ]);
      expect(await runRecording({ callId: ended!.id }, t0 + 9000, recDir)).toBe("stored");
      // rtpengine's files are gone; a second run changes nothing
      expect(fs.readdirSync(path.join(recDir, "pcaps"))).toEqual([]);
      expect(await runRecording({ callId: ended!.id }, t0 + 9000, recDir)).toBe("nothing");
      const [row] = await db.select().from(schema.calls).where(eq(schema.calls.id, ended!.id));
      expect(row.recordingType).toBe("audio/ogg");
      expect(row.recordingMs).toBeGreaterThan(3000);
      expect(
        await db
          .select()
          .from(schema.jobs)
          .where(eq(schema.jobs.key, `${TRANSCRIBE_JOB}:${row.id}`)),
      ).toHaveLength(1);

      // the transcription job, per leg: a call between two outside numbers counts as outbound, whose agent leg is the caller's
      expect(await runTranscription({ callId: row.id })).toBeGreaterThan(0);
      const transcript = await transcriptOf(row.id);
      const spoken = transcript
        .filter((e) => e.source === "agent")
        .map((e) => e.transcription)
        .join(" ");
      const wer = wordErrorRate(SENTENCE, spoken);
      console.log(`transcription (${dialect}): "${spoken}" for "${SENTENCE}": word error rate ${(wer * 100).toFixed(0)}%`);
      expect(wer).toBeLessThanOrEqual(0.5);
      // again: replaced, not doubled
      await runTranscription({ callId: row.id });
      expect(await transcriptOf(row.id)).toHaveLength(transcript.length);

      // the call's page: the player and the transcript
      const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, row.ticketId));
      const panels = await callPanels({ ticket: { ...ticket, kind: "call" }, reader: admin, viewer: admin as never });
      expect(panels?.[0].audio?.src).toBe(`/api/proxy/recordings?id=${ticket.ticketNumber}&type=call`);
      expect(panels?.[1].items.length).toBe(transcript.length);

      // streamed with ranges to a reader; 403 for a user who may not read the call
      const url = `http://localhost/api/proxy/recordings?id=${ticket.ticketNumber}&type=call`;
      const whole = await call(recordingsRoute.loader as Fn, new Request(url, { headers: { Cookie: adminCookie } }));
      expect(whole.status).toBe(200);
      expect(whole.headers.get("Accept-Ranges")).toBe("bytes");
      const bytes = Buffer.from(await whole.arrayBuffer());
      expect(bytes.length).toBe(row.recordingBytes);
      expect(bytes.subarray(0, 4).toString("latin1")).toBe("OggS");
      const part = await call(recordingsRoute.loader as Fn, new Request(url, { headers: { Cookie: adminCookie, Range: "bytes=10-109" } }));
      expect(part.status).toBe(206);
      expect(part.headers.get("Content-Range")).toBe(`bytes 10-109/${bytes.length}`);
      expect(Buffer.from(await part.arrayBuffer())).toEqual(bytes.subarray(10, 110));
      const past = await call(recordingsRoute.loader as Fn, new Request(url, { headers: { Cookie: adminCookie, Range: `bytes=${bytes.length}-` } }));
      expect(past.status).toBe(416);
      const denied = await call(recordingsRoute.loader as Fn, new Request(url, { headers: { Cookie: agentCookie, Range: "bytes=0-10" } }));
      expect(denied.status).toBe(403);
      const none = await call(
        recordingsRoute.loader as Fn,
        new Request(`http://localhost/api/proxy/recordings?id=999999`, { headers: { Cookie: adminCookie } }),
      );
      expect(none.status).toBe(404);
      const anonymous = await call(recordingsRoute.loader as Fn, new Request(url));
      expect(anonymous.status).toBe(401);

      // a voicemail is listed on /voicemail for admins; an agent without view_voicemail is refused
      await db.update(schema.calls).set({ voicemail: true }).where(eq(schema.calls.id, row.id));
      const list = await call(voicemailRoute.loader as Fn, new Request("http://localhost/voicemail", { headers: { Cookie: adminCookie } }));
      const data = (await list.json()) as { voicemails: { ticketNumber: number; from: string; seconds: number }[] };
      expect(data.voicemails).toEqual([expect.objectContaining({ ticketNumber: ticket.ticketNumber, from: "+60123456789" })]);
      expect(data.voicemails[0].seconds).toBeGreaterThan(2);
      expect((await call(voicemailRoute.loader as Fn, new Request("http://localhost/voicemail", { headers: { Cookie: agentCookie } }))).status).toBe(403);
    },
    120_000,
  );
});
