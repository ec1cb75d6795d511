// What rtpengine's pcap recordings hold (--recording-method=pcap): per call one pcap file of raw IP
// packets (link type 101), each an RTP packet as rtpengine received it (decrypted), the IP/UDP
// header saying who sent it and to which of rtpengine's ports; and a metadata file with the SDPs
// rtpengine gave out. The offer's SDP goes to the callee, so what arrives on the offer's port was
// sent by the callee; what arrives on the answer's port, by the caller.

export interface RtpPacket {
  /** capture time, ms */
  at: number;
  srcPort: number;
  dstPort: number;
  payloadType: number;
  seq: number;
  timestamp: number;
  ssrc: number;
  payload: Buffer;
}

/** The RTP packets of a pcap file (link type raw IPv4/IPv6 or Ethernet); what is not UDP/RTP is skipped. */
export function readPcap(bytes: Buffer): RtpPacket[] {
  if (bytes.length < 24) return [];
  const magic = bytes.readUInt32LE(0);
  const le = magic === 0xa1b2c3d4 || magic === 0xa1b23c4d;
  if (!le && bytes.readUInt32BE(0) !== 0xa1b2c3d4 && bytes.readUInt32BE(0) !== 0xa1b23c4d) throw new Error("not a pcap file");
  const nano = (le ? magic : bytes.readUInt32BE(0)) === 0xa1b23c4d;
  const u32 = (o: number) => (le ? bytes.readUInt32LE(o) : bytes.readUInt32BE(o));
  const link = u32(20);
  const out: RtpPacket[] = [];
  for (let o = 24; o + 16 <= bytes.length;) {
    const at = u32(o) * 1000 + u32(o + 4) / (nano ? 1e6 : 1e3);
    const caplen = u32(o + 8);
    let p = bytes.subarray(o + 16, o + 16 + caplen);
    o += 16 + caplen;
    if (link === 1) p = p.subarray(14);
    if (p.length < 1) continue;
    let udp: Buffer;
    const version = p[0] >> 4;
    if (version === 4) {
      if (p[9] !== 17) continue;
      udp = p.subarray((p[0] & 15) * 4);
    } else if (version === 6) {
      if (p[6] !== 17) continue;
      udp = p.subarray(40);
    } else continue;
    const rtp = udp.subarray(8);
    if (rtp.length < 12 || rtp[0] >> 6 !== 2) continue;
    const pt = rtp[1] & 0x7f;
    if (pt >= 72 && pt <= 76) continue; // RTCP
    const csrc = rtp[0] & 15;
    let start = 12 + csrc * 4;
    if (rtp[0] & 0x10) start += 4 + rtp.readUInt16BE(start + 2) * 4;
    let end = rtp.length;
    if (rtp[0] & 0x20) end -= rtp[rtp.length - 1];
    if (start > end) continue;
    out.push({
      at,
      srcPort: udp.readUInt16BE(0),
      dstPort: udp.readUInt16BE(2),
      payloadType: pt,
      seq: rtp.readUInt16BE(2),
      timestamp: rtp.readUInt32BE(4),
      ssrc: rtp.readUInt32BE(8),
      payload: Buffer.from(rtp.subarray(start, end)),
    });
  }
  return out;
}

export interface RecordingSdp {
  mode: string;
  port: number;
  /** payload type → codec name in lower case (opus, pcmu, pcma, telephone-event, ...) */
  codecs: Map<number, { name: string; rate: number; channels: number }>;
}

const STATIC_CODECS: Record<number, { name: string; rate: number; channels: number }> = {
  0: { name: "pcmu", rate: 8000, channels: 1 },
  8: { name: "pcma", rate: 8000, channels: 1 },
  9: { name: "g722", rate: 8000, channels: 1 },
};

/** The SDPs of rtpengine's metadata file, in order ("SDP mode: offer" / "answer" blocks). */
export function readMetadata(text: string): RecordingSdp[] {
  const out: RecordingSdp[] = [];
  for (const block of text.split(/\n(?=SDP mode: )/).slice(1)) {
    const mode = /^SDP mode: (\w+)/.exec(block)?.[1] ?? "";
    const port = Number(/^m=audio (\d+)/m.exec(block)?.[1] ?? 0);
    const codecs = new Map(Object.entries(STATIC_CODECS).map(([k, v]) => [Number(k), v]));
    for (const m of block.matchAll(/^a=rtpmap:(\d+) ([^/\s]+)\/(\d+)(?:\/(\d+))?/gm))
      codecs.set(Number(m[1]), { name: m[2].toLowerCase(), rate: Number(m[3]), channels: Number(m[4] ?? 1) });
    if (port) out.push({ mode, port, codecs });
  }
  return out;
}

export type LegRole = "caller" | "callee";

export interface Leg {
  role: LegRole;
  codec: { name: string; rate: number; channels: number };
  /** capture time of the leg's first packet, ms */
  startAt: number;
  packets: RtpPacket[];
}

/** Codecs a leg can be turned into audio from. */
export const DECODABLE = ["pcmu", "pcma", "opus", "g722"];

/**
 * The call's legs: the audio each side sent, its packets in RTP order (repeats dropped), in the
 * codec its payload type names. A side that sent no audio (a held or muted phone) has no leg.
 */
export function legsOf(packets: RtpPacket[], sdps: RecordingSdp[]): Leg[] {
  const offer = sdps.find((s) => s.mode === "offer");
  const answer = sdps.find((s) => s.mode === "answer");
  const codecOf = (pt: number) => offer?.codecs.get(pt) ?? answer?.codecs.get(pt) ?? STATIC_CODECS[pt];
  const firstPort = packets[0]?.dstPort;
  const roleOf = (p: RtpPacket): LegRole => {
    if (offer && p.dstPort === offer.port) return "callee";
    if (answer && p.dstPort === answer.port) return "caller";
    // no metadata: the first to send is taken as the caller
    return p.dstPort === firstPort ? "caller" : "callee";
  };
  const legs = new Map<LegRole, Leg>();
  for (const p of packets) {
    const codec = codecOf(p.payloadType);
    if (!codec || !DECODABLE.includes(codec.name)) continue; // DTMF events, comfort noise
    const role = roleOf(p);
    let leg = legs.get(role);
    if (!leg) legs.set(role, (leg = { role, codec, startAt: p.at, packets: [] }));
    if (codec.name !== leg.codec.name) continue;
    leg.packets.push(p);
  }
  for (const leg of legs.values()) leg.packets = inRtpOrder(leg.packets);
  return [...legs.values()].filter((l) => l.packets.length > 0);
}

/** Packets ordered by sequence number (wrapping at 65536) per SSRC in order of arrival, repeats dropped. */
function inRtpOrder(packets: RtpPacket[]) {
  const bySsrc = new Map<number, { p: RtpPacket; n: number }[]>();
  for (const p of packets) {
    const list = bySsrc.get(p.ssrc) ?? [];
    bySsrc.set(p.ssrc, list);
    const last = list.at(-1);
    let n = p.seq;
    if (last) {
      const diff = ((p.seq - (last.n & 0xffff) + 0x8000) & 0xffff) - 0x8000;
      n = last.n + diff;
    }
    list.push({ p, n });
  }
  const out: RtpPacket[] = [];
  for (const list of bySsrc.values()) {
    const seen = new Set<number>();
    for (const { p, n } of list.sort((a, b) => a.n - b.n)) {
      if (seen.has(n)) continue;
      seen.add(n);
      out.push(p);
    }
  }
  return out;
}

/** Silence of this codec for this many samples (G.711 payloads only). */
const SILENCE: Record<string, number> = { pcmu: 0xff, pcma: 0xd5 };

/**
 * A G.711 leg as one stream of samples: a gap in RTP timestamps (a lost packet, a pause in sending)
 * becomes silence, so the leg keeps its length in time.
 */
export function g711Stream(leg: Leg): Buffer {
  const parts: Buffer[] = [];
  let next: number | null = null;
  for (const p of leg.packets) {
    if (next != null) {
      const gap = (p.timestamp - next) >>> 0;
      // a gap of up to a minute is filled; anything else is a new timestamp base
      if (gap > 0 && gap < 60 * leg.codec.rate) parts.push(Buffer.alloc(gap, SILENCE[leg.codec.name] ?? 0));
    }
    parts.push(p.payload);
    next = (p.timestamp + p.payload.length) >>> 0;
  }
  return Buffer.concat(parts);
}
