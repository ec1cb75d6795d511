// Opus packets in an Ogg file (RFC 7845) and back: a WebRTC leg's RTP payloads are Opus packets,
// which ffmpeg reads once they sit in an Ogg container; and a test turns an Ogg Opus file made by
// ffmpeg into RTP packets.

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

function crc(page: Buffer) {
  let c = 0;
  for (const b of page) c = ((c << 8) ^ CRC_TABLE[((c >>> 24) & 0xff) ^ b]) >>> 0;
  return c >>> 0;
}

function page(serial: number, seqNo: number, granule: bigint, flags: number, packet: Buffer) {
  const lacing: number[] = [];
  let left = packet.length;
  while (left >= 255) {
    lacing.push(255);
    left -= 255;
  }
  lacing.push(left);
  if (lacing.length > 255) throw new Error("Opus packet too large for one Ogg page");
  const head = Buffer.alloc(27 + lacing.length);
  head.write("OggS", 0, "latin1");
  head[5] = flags;
  head.writeBigInt64LE(granule, 6);
  head.writeUInt32LE(serial, 14);
  head.writeUInt32LE(seqNo, 18);
  head[26] = lacing.length;
  Buffer.from(lacing).copy(head, 27);
  const out = Buffer.concat([head, packet]);
  out.writeUInt32LE(crc(out), 22);
  return out;
}

/**
 * An Ogg Opus file of these packets; `timestamps` are their RTP timestamps (48 kHz clock), so a gap
 * in sending keeps its length in time.
 */
export function oggOpus(packets: { payload: Buffer; timestamp: number }[], channels = 1): Buffer {
  const serial = 0x5ca11;
  const headPacket = Buffer.alloc(19);
  headPacket.write("OpusHead", 0, "latin1");
  headPacket[8] = 1;
  headPacket[9] = channels;
  headPacket.writeUInt16LE(312, 10); // pre-skip
  headPacket.writeUInt32LE(48000, 12);
  const tags = Buffer.alloc(8 + 4 + 7 + 4);
  tags.write("OpusTags", 0, "latin1");
  tags.writeUInt32LE(7, 8);
  tags.write("omnidsk", 12, "latin1");
  tags.writeUInt32LE(0, 19);
  const pages = [page(serial, 0, 0n, 0x02, headPacket), page(serial, 1, 0n, 0, tags)];
  const base = packets[0]?.timestamp ?? 0;
  packets.forEach((p, i) => {
    const samples = opusSamples(p.payload);
    const granule = BigInt(((p.timestamp - base) >>> 0) + samples);
    pages.push(page(serial, i + 2, granule, i === packets.length - 1 ? 0x04 : 0, p.payload));
  });
  return Buffer.concat(pages);
}

/** Samples (48 kHz) in one Opus packet (RFC 6716 section 3.1). */
export function opusSamples(packet: Buffer) {
  if (!packet.length) return 0;
  const toc = packet[0];
  const config = toc >> 3;
  const frame = config < 12 ? [480, 960, 1920, 2880][config & 3] : config < 16 ? [480, 960][config & 1] : [120, 240, 480, 960][config & 3];
  const code = toc & 3;
  const frames = code === 0 ? 1 : code === 1 || code === 2 ? 2 : (packet[1] ?? 0) & 0x3f;
  return frame * frames;
}

/** The packets of an Ogg file's first stream (the two Opus header packets included). */
export function oggPackets(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let pending: Buffer[] = [];
  for (let o = 0; o + 27 <= bytes.length;) {
    if (bytes.toString("latin1", o, o + 4) !== "OggS") throw new Error("not an Ogg page");
    const segments = bytes[o + 26];
    const lacing = bytes.subarray(o + 27, o + 27 + segments);
    let at = o + 27 + segments;
    for (const len of lacing) {
      pending.push(bytes.subarray(at, at + len));
      at += len;
      if (len < 255) {
        out.push(Buffer.concat(pending));
        pending = [];
      }
    }
    o = at;
  }
  return out;
}
