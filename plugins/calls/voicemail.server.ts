// The product's voicemail: a small SIP user agent (UDP) run by the Node server, that Kamailio sends a
// call from the trunk to when nobody of the DID's queue answered within its ring timeout
// (sip/kamailio.cfg, failure_route INBOUND_FAIL). It answers with plain RTP (G.711, through
// rtpengine like every leg), plays the DID's greeting (its text spoken by espeak-ng) and a tone,
// records what the caller says until the caller hangs up (or VOICEMAIL_MAX_SECONDS), and stores
// the message as the call's recording through the product's storage (recording.server.ts's
// attachRecording: Ogg Opus by ffmpeg), the call's row marked voicemail, so /voicemail lists it.
// Calls are named by their SIP Call-ID, as Kamailio's events name them (calls.server.ts).
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import dgram from "node:dgram";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { attachRecording } from "./recording.server";
import { DEFAULT_GREETING, didByNumber } from "./dids.server";

const ffmpeg = () => process.env.FFMPEG_BIN || "ffmpeg";
const espeak = () => process.env.ESPEAK_BIN || "espeak-ng";
const KAMAILIO_BIN = () => process.env.KAMAILIO_BIN || "/usr/sbin/kamailio";

/** Where the voicemail listens (Kamailio's config names the same: sip/servers.ts); null when switched off (VOICEMAIL_SIP_PORT=0). */
export function voicemailAddress(env: Record<string, string | undefined> = process.env) {
  const port = Number(env.VOICEMAIL_SIP_PORT ?? 5072);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) return null;
  return { host: env.VOICEMAIL_SIP_HOST || env.SIP_LISTEN || "127.0.0.1", port };
}

/** Calls from a trunk and voicemail need the call server: installed here and the voicemail not switched off. */
export function trunkConfigured() {
  return voicemailAddress() != null && fs.existsSync(KAMAILIO_BIN());
}

function run(bin: string, args: string[], timeout = 60_000) {
  return new Promise<void>((resolve, reject) =>
    execFile(bin, args, { timeout, maxBuffer: 4 * 1024 * 1024 }, (error, _out, stderr) =>
      error ? reject(new Error(`${path.basename(bin)} failed: ${error.message}\n${String(stderr).slice(-1000)}`)) : resolve(),
    ),
  );
}

type Codec = { pt: 0 | 8; name: "PCMU" | "PCMA"; format: "mulaw" | "alaw" };
const CODECS: Codec[] = [
  { pt: 0, name: "PCMU", format: "mulaw" },
  { pt: 8, name: "PCMA", format: "alaw" },
];

const greetings = new Map<string, Promise<Buffer>>();

/**
 * The greeting spoken by espeak-ng then a 1 kHz tone, as 8 kHz G.711 samples (cached per text and
 * codec). Without espeak-ng, the tone alone.
 */
export function greetingAudio(text: string, codec: Codec["format"]): Promise<Buffer> {
  const key = createHash("sha256").update(`${codec}:${text}`).digest("hex");
  let made = greetings.get(key);
  if (!made) {
    made = (async () => {
      const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "omnidesk-vm-"));
      try {
        const wav = path.join(dir, "greeting.wav");
        const out = path.join(dir, "greeting.raw");
        const spoken = await run(espeak(), ["-v", "en", "-s", "160", "-w", wav, text.slice(0, 500)]).then(
          () => true,
          () => false,
        );
        const tone = ["-f", "lavfi", "-i", "sine=frequency=1000:duration=0.4:sample_rate=8000"];
        const mono = "aresample=8000,aformat=sample_fmts=s16:sample_rates=8000:channel_layouts=mono";
        await run(ffmpeg(), [
          "-hide_banner",
          "-loglevel",
          "error",
          "-y",
          ...(spoken ? ["-i", wav] : []),
          ...tone,
          "-filter_complex",
          spoken ? `[0:a]${mono}[g];[1:a]${mono}[t];[g][t]concat=n=2:v=0:a=1[out]` : `[0:a]${mono}[out]`,
          "-map",
          "[out]",
          "-f",
          codec,
          "-ar",
          "8000",
          "-ac",
          "1",
          out,
        ]);
        return await fs.promises.readFile(out);
      } finally {
        await fs.promises.rm(dir, { recursive: true, force: true });
      }
    })();
    made.catch(() => greetings.delete(key));
    greetings.set(key, made);
  }
  return made;
}

// ---- SIP messages (RFC 3261), as much as a UAS that answers and hangs up needs ----

export interface SipMessage {
  method: string;
  status: number;
  uri: string;
  /** header name (lower case) to its values, in order */
  headers: Map<string, string[]>;
  body: string;
}

const COMPACT: Record<string, string> = { v: "via", f: "from", t: "to", i: "call-id", m: "contact", l: "content-length", c: "content-type" };

export function parseSip(raw: string): SipMessage | null {
  const split = raw.indexOf("\r\n\r\n");
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? "" : raw.slice(split + 4);
  const lines = head.split("\r\n");
  const first = lines[0] ?? "";
  const response = /^SIP\/2\.0 (\d{3}) /.exec(first);
  const request = /^([A-Z]+) (\S+) SIP\/2\.0$/.exec(first);
  if (!response && !request) return null;
  const headers = new Map<string, string[]>();
  for (const line of lines.slice(1)) {
    const i = line.indexOf(":");
    if (i <= 0) continue;
    let name = line.slice(0, i).trim().toLowerCase();
    name = COMPACT[name] ?? name;
    const value = line.slice(i + 1).trim();
    // Via and Record-Route may carry several values in one line
    const values = name === "via" || name === "record-route" || name === "route" ? value.split(/,(?=\s*(?:SIP\/|<))/).map((v) => v.trim()) : [value];
    headers.set(name, [...(headers.get(name) ?? []), ...values]);
  }
  return { method: request ? request[1] : "", status: response ? Number(response[1]) : 0, uri: request ? request[2] : "", headers, body };
}

const header = (m: SipMessage, name: string) => m.headers.get(name)?.[0] ?? "";

/** The user part of a SIP URI or name-addr (sip:+60312345678@host → +60312345678). */
export const uriUser = (value: string) => /sips?:([^@;>]+)@/.exec(value)?.[1] ?? "";

/** The offer's audio address, port and G.711 codec we share, or null. */
export function readOffer(sdp: string) {
  const ip = /^c=IN IP4 (\S+)/m.exec(sdp)?.[1];
  const m = /^m=audio (\d+) RTP\/\S+ ([\d ]+)/m.exec(sdp);
  if (!ip || !m) return null;
  const offered = m[2].trim().split(/\s+/).map(Number);
  const codec = CODECS.find((c) => offered.includes(c.pt));
  return codec ? { ip, port: Number(m[1]), codec } : null;
}

function answerSdp(host: string, port: number, codec: Codec) {
  const id = Date.now();
  return [
    "v=0",
    `o=omnidesk ${id} ${id} IN IP4 ${host}`,
    "s=voicemail",
    `c=IN IP4 ${host}`,
    "t=0 0",
    `m=audio ${port} RTP/AVP ${codec.pt}`,
    `a=rtpmap:${codec.pt} ${codec.name}/8000`,
    "a=ptime:20",
    "a=sendrecv",
    "",
  ].join("\r\n");
}

function responseTo(req: SipMessage, status: number, reason: string, extra: string[] = [], body = "", toTag?: string) {
  const to = header(req, "to");
  const lines = [
    `SIP/2.0 ${status} ${reason}`,
    ...(req.headers.get("via") ?? []).map((v) => `Via: ${v}`),
    ...(req.headers.get("record-route") ?? []).map((r) => `Record-Route: ${r}`),
    `From: ${header(req, "from")}`,
    `To: ${toTag && !/;tag=/.test(to) ? `${to};tag=${toTag}` : to}`,
    `Call-ID: ${header(req, "call-id")}`,
    `CSeq: ${header(req, "cseq")}`,
    ...extra,
    "Server: omnidesk-voicemail",
    ...(body ? ["Content-Type: application/sdp"] : []),
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ];
  return lines.join("\r\n");
}

/** Where a request goes: host and port of a SIP URI (sip:x@127.0.0.1:5070;lr). */
function hostPort(uri: string) {
  const m = /sips?:(?:[^@;>]+@)?([^:;>]+)(?::(\d+))?/.exec(uri);
  return m ? { host: m[1], port: Number(m[2] ?? 5060) } : null;
}

// ---- RTP (RFC 3550) ----

const rtpPacket = (pt: number, seq: number, timestamp: number, ssrc: number, payload: Buffer) => {
  const head = Buffer.alloc(12);
  head[0] = 0x80;
  head[1] = pt & 0x7f;
  head.writeUInt16BE(seq & 0xffff, 2);
  head.writeUInt32BE(timestamp >>> 0, 4);
  head.writeUInt32BE(ssrc >>> 0, 8);
  return Buffer.concat([head, payload]);
};

/** The payload of an RTP packet of payload type `pt`, or null (RTCP, another type, not RTP). */
export function rtpPayload(packet: Buffer, pt: number) {
  if (packet.length < 12 || packet[0] >> 6 !== 2) return null;
  if ((packet[1] & 0x7f) !== pt) return null;
  let offset = 12 + (packet[0] & 0x0f) * 4;
  if (packet[0] & 0x10) {
    if (packet.length < offset + 4) return null;
    offset += 4 + packet.readUInt16BE(offset + 2) * 4;
  }
  let end = packet.length;
  if (packet[0] & 0x20) end -= packet[end - 1];
  return offset <= end ? packet.subarray(offset, end) : null;
}

// ---- one call ----

interface Session {
  callId: string;
  invite: SipMessage;
  toTag: string;
  answer: string;
  rtp: dgram.Socket;
  codec: Codec;
  chunks: Buffer[];
  bytes: number;
  acked: boolean;
  ended: boolean;
  timers: ReturnType<typeof setTimeout>[];
  cseq: number;
  done: Promise<void>;
  finish: () => void;
}

export interface VoicemailServer {
  port: number;
  /** the calls being recorded now */
  active(): number;
  stop(): Promise<void>;
}

type Log = (message: string, error?: unknown) => void;

/** Starts the voicemail UA on host:port (UDP). Answers the server; its stop() ends calls in progress (their messages kept). */
export async function startVoicemail(
  options: { host: string; port: number; maxSeconds?: number; log?: Log } = { ...voicemailAddress()! },
): Promise<VoicemailServer> {
  const log: Log = options.log ?? ((m, e) => console.warn(`[voicemail] ${m}`, e ?? ""));
  const maxSeconds = options.maxSeconds ?? (Number(process.env.VOICEMAIL_MAX_SECONDS) || 120);
  const sip = dgram.createSocket("udp4");
  await new Promise<void>((resolve, reject) => {
    sip.once("error", reject);
    sip.bind(options.port, options.host, () => {
      sip.off("error", reject);
      resolve();
    });
  });
  sip.on("error", (e) => log("socket error", e));
  const port = sip.address().port;
  const host = options.host;
  const sessions = new Map<string, Session>();

  const send = (text: string, to: { host: string; port: number }) => sip.send(text, to.port, to.host);

  /** Where a response goes: the top Via's received/rport, else its sent-by. */
  const viaTarget = (req: SipMessage, from: dgram.RemoteInfo) => {
    const via = header(req, "via");
    const rport = /;rport=(\d+)/.exec(via)?.[1];
    const received = /;received=([^;]+)/.exec(via)?.[1];
    const sentBy = /SIP\/2\.0\/UDP ([^:;\s]+)(?::(\d+))?/i.exec(via);
    return { host: received ?? sentBy?.[1] ?? from.address, port: Number(rport ?? sentBy?.[2] ?? from.port) };
  };

  /** Hangs up from our side (the message is long enough): BYE along the route set. */
  const bye = (s: Session) => {
    if (s.ended) return;
    const routes = s.invite.headers.get("record-route") ?? [];
    const contact = /<([^>]+)>/.exec(header(s.invite, "contact"))?.[1] ?? header(s.invite, "contact");
    const next = hostPort(routes[0] ? (/<([^>]+)>/.exec(routes[0])?.[1] ?? routes[0]) : contact);
    if (next) {
      const to = header(s.invite, "from");
      const from = `${header(s.invite, "to")};tag=${s.toTag}`;
      const lines = [
        `BYE ${contact} SIP/2.0`,
        `Via: SIP/2.0/UDP ${host}:${port};branch=z9hG4bK${randomBytes(8).toString("hex")};rport`,
        "Max-Forwards: 70",
        ...routes.map((r) => `Route: ${r}`),
        `From: ${from}`,
        `To: ${to}`,
        `Call-ID: ${s.callId}`,
        `CSeq: ${++s.cseq} BYE`,
        "Content-Length: 0",
        "",
        "",
      ];
      send(lines.join("\r\n"), next);
    }
    void end(s);
  };

  /** The call is over: the media stops and the message is stored. */
  const end = async (s: Session) => {
    if (s.ended) return;
    s.ended = true;
    for (const t of s.timers) clearTimeout(t);
    s.rtp.close();
    try {
      await storeMessage(s.callId, Buffer.concat(s.chunks), s.codec.format);
    } catch (error) {
      log(`the message of call ${s.callId} was not stored`, error);
    } finally {
      sessions.delete(s.callId);
      s.finish();
    }
  };

  const onInvite = async (req: SipMessage, from: dgram.RemoteInfo) => {
    const callId = header(req, "call-id");
    const target = viaTarget(req, from);
    const known = sessions.get(callId);
    if (known) {
      // a retransmitted INVITE: the same answer again
      send(known.answer, target);
      return;
    }
    send(responseTo(req, 100, "Trying"), target);
    const offer = readOffer(req.body);
    if (!offer) {
      send(responseTo(req, 488, "Not Acceptable Here", [], "", randomBytes(6).toString("hex")), target);
      return;
    }
    const { db, schema } = getDb();
    const [call] = await db.select().from(schema.calls).where(eq(schema.calls.sipCallId, callId));
    if (!call || call.state === "ended") {
      send(responseTo(req, 480, "Temporarily Unavailable", [], "", randomBytes(6).toString("hex")), target);
      return;
    }
    const did = await didByNumber(call.did || uriUser(req.uri) || uriUser(header(req, "to")));
    const audio = await greetingAudio(did?.greeting || DEFAULT_GREETING, offer.codec.format).catch((error) => {
      log("no greeting", error);
      return Buffer.alloc(0);
    });
    const rtp = dgram.createSocket("udp4");
    await new Promise<void>((resolve) => rtp.bind(0, host, resolve));
    let finish = () => {};
    const done = new Promise<void>((r) => (finish = r));
    const toTag = randomBytes(6).toString("hex");
    const s: Session = {
      callId,
      invite: req,
      toTag,
      answer: responseTo(
        req,
        200,
        "OK",
        [`Contact: <sip:voicemail@${host}:${port}>`, "Allow: INVITE, ACK, BYE, CANCEL, OPTIONS"],
        answerSdp(host, rtp.address().port, offer.codec),
        toTag,
      ),
      rtp,
      codec: offer.codec,
      chunks: [],
      bytes: 0,
      acked: false,
      ended: false,
      timers: [],
      cseq: 0,
      done,
      finish,
    };
    sessions.set(callId, s);
    // the call is a voicemail from now on (its end is told apart from a call that was answered)
    await db.update(schema.calls).set({ voicemail: true }).where(eq(schema.calls.id, call.id));
    send(s.answer, target);
    // UDP: the 200 again until the ACK comes
    let wait = 500;
    const resend = () => {
      if (s.acked || s.ended) return;
      send(s.answer, target);
      wait = Math.min(wait * 2, 4000);
      s.timers.push(setTimeout(resend, wait));
    };
    s.timers.push(setTimeout(resend, wait));
    // the caller's words after the greeting are the message (the greeting's echo is not recorded)
    const greetingMs = (audio.length / 8000) * 1000;
    const startedAt = Date.now();
    rtp.on("message", (packet) => {
      if (s.ended || Date.now() - startedAt < greetingMs) return;
      const payload = rtpPayload(packet, offer.codec.pt);
      if (!payload) return;
      s.chunks.push(Buffer.from(payload));
      s.bytes += payload.length;
      if (s.bytes >= maxSeconds * 8000) bye(s);
    });
    rtp.on("error", (e) => log("media error", e));
    // the greeting, 20 ms a packet, paced by the clock
    const ssrc = randomBytes(4).readUInt32BE(0);
    let seq = randomBytes(2).readUInt16BE(0);
    let ts = randomBytes(4).readUInt32BE(0);
    let sent = 0;
    const frames = Math.ceil(audio.length / 160);
    const tick = () => {
      if (s.ended) return;
      const due = Math.min(frames, Math.floor((Date.now() - startedAt) / 20) + 1);
      while (sent < due) {
        const frame = audio.subarray(sent * 160, sent * 160 + 160);
        rtp.send(rtpPacket(offer.codec.pt, seq++, ts, ssrc, frame), offer.port, offer.ip);
        ts += 160;
        sent++;
      }
      if (sent < frames) s.timers.push(setTimeout(tick, 20));
    };
    tick();
    // a caller who never hangs up: the message ends at the limit all the same
    s.timers.push(setTimeout(() => bye(s), greetingMs + maxSeconds * 1000 + 1000));
  };

  sip.on("message", (buffer, from) => {
    const msg = parseSip(buffer.toString("utf8"));
    if (!msg) return;
    const callId = header(msg, "call-id");
    const s = sessions.get(callId);
    if (msg.status) return; // a response (to our BYE): nothing more to do
    const target = viaTarget(msg, from);
    switch (msg.method) {
      case "INVITE":
        if (s && header(msg, "to").includes(`tag=${s.toTag}`)) {
          // a re-INVITE (hold, a new media address): the same answer
          send(s.answer, target);
          return;
        }
        onInvite(msg, from).catch((error) => {
          log(`call ${callId} could not be answered`, error);
          send(responseTo(msg, 500, "Server Error", [], "", randomBytes(6).toString("hex")), target);
        });
        return;
      case "ACK":
        if (s) s.acked = true;
        return;
      case "BYE":
        send(responseTo(msg, 200, "OK"), target);
        if (s) void end(s);
        return;
      case "CANCEL":
        send(responseTo(msg, 200, "OK"), target);
        if (s && !s.acked) void end(s);
        return;
      case "OPTIONS":
        send(responseTo(msg, 200, "OK", ["Allow: INVITE, ACK, BYE, CANCEL, OPTIONS"]), target);
        return;
      default:
        send(responseTo(msg, 405, "Method Not Allowed", ["Allow: INVITE, ACK, BYE, CANCEL, OPTIONS"]), target);
    }
  });

  return {
    port,
    active: () => sessions.size,
    async stop() {
      const open = [...sessions.values()];
      for (const s of open) bye(s);
      await Promise.all(open.map((s) => s.done));
      await new Promise<void>((r) => sip.close(() => r()));
    },
  };
}

/** The caller's message (G.711 samples) as the call's recording, Ogg Opus through the product's storage; the call marked voicemail. */
export async function storeMessage(callId: string, samples: Buffer, format: Codec["format"]) {
  const { db, schema } = getDb();
  const [call] = await db.select({ id: schema.calls.id }).from(schema.calls).where(eq(schema.calls.sipCallId, callId));
  if (!call || samples.length < 800) return false; // no call, or under 0.1 s: nothing was said
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "omnidesk-vm-"));
  try {
    const raw = path.join(dir, "message.raw");
    const out = path.join(dir, "message.ogg");
    await fs.promises.writeFile(raw, samples);
    await run(ffmpeg(), [
      "-hide_banner",
      "-loglevel",
      "error",
      "-y",
      "-f",
      format,
      "-ar",
      "8000",
      "-ac",
      "1",
      "-i",
      raw,
      "-c:a",
      "libopus",
      "-b:a",
      "32k",
      "-f",
      "ogg",
      out,
    ]);
    await db.update(schema.calls).set({ voicemail: true }).where(eq(schema.calls.id, call.id));
    return await attachRecording(call.id, out, Math.round((samples.length / 8000) * 1000));
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
