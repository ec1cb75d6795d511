// What LINE takes from an agent, checked before anything is sent. Delivery errors are translation
// keys of this plugin's texts (app/conversation/delivery.ts deliveryErrorText shows them).
import type { messagingApi } from "@line/bot-sdk";

/**
 * LINE takes pictures, videos and audio only as https addresses it fetches itself
 * (originalContentUrl, previewImageUrl): they go out as the file's signed, expiring public address
 * (plugins/channels/public-files.server.ts). Bots cannot send documents ("file" messages are only
 * received): those are refused before anything is sent.
 */
export const NO_FILES = "plugin_line.delivery.noFiles";
export const FILE_SIZE = "plugin_line.delivery.fileSize";
export const AUDIO_LENGTH = "plugin_line.delivery.audioLength";
export const TEXT_TOO_LONG = "plugin_line.delivery.textTooLong";

/** A text message's limit, in characters. */
export const TEXT_MAX = 5000;
/** Messages one reply or push request may carry. */
export const MESSAGES_MAX = 5;

const MB = 1024 * 1024;
/** Image message: "JPEG or PNG", "Max file size: 10 MB"; its preview at most 1 MB. */
export const IMAGE_MAX = 10 * MB;
export const PREVIEW_MAX = 1 * MB;
/** Video message: "mp4", and audio message: "mp3 or m4a", each "Max file size: 200 MB". */
export const MEDIA_MAX = 200 * MB;

const KINDS: { kind: "image" | "video" | "audio"; types: string[]; max: number }[] = [
  { kind: "image", types: ["image/jpeg", "image/png"], max: IMAGE_MAX },
  { kind: "video", types: ["video/mp4"], max: MEDIA_MAX },
  { kind: "audio", types: ["audio/mpeg", "audio/mp3", "audio/mp4", "audio/x-m4a", "audio/m4a", "audio/aac"], max: MEDIA_MAX },
];

const size = (bytes: number) => (bytes >= MB ? `${Math.round(bytes / MB)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

/** Which LINE message a file goes out as, or null when bots cannot send it. */
export const lineFileKind = (file: { type: string }) => KINDS.find((k) => k.types.includes(file.type.toLowerCase()))?.kind ?? null;

/** Why LINE cannot be sent this file, or null. */
export function fileProblem(file: { type: string; size: number; name: string }) {
  const kind = KINDS.find((k) => k.types.includes(file.type.toLowerCase()));
  if (!kind) return `${NO_FILES}: ${file.name}`;
  if (file.size > kind.max) return `${FILE_SIZE}: ${file.name} (${size(file.size)} > ${size(kind.max)})`;
  return null;
}

/**
 * An audio file's length in milliseconds (LINE's audio message needs it): an M4A's movie header
 * (mvhd), or an MP3's length at the bitrate of its first frame (a VBR file's Xing frame count when
 * it has one); null when it cannot be told.
 */
export function audioLengthMs(bytes: Buffer): number | null {
  const mvhd = bytes.indexOf("mvhd");
  if (mvhd >= 4) {
    const version = bytes[mvhd + 4];
    const at = mvhd + 4 + 4 + (version === 1 ? 16 : 8);
    if (at + (version === 1 ? 12 : 8) <= bytes.length) {
      const timescale = bytes.readUInt32BE(at);
      const duration = version === 1 ? Number(bytes.readBigUInt64BE(at + 4)) : bytes.readUInt32BE(at + 4);
      if (timescale > 0 && duration > 0) return Math.round((duration / timescale) * 1000);
    }
  }
  return mp3LengthMs(bytes);
}

const MP3_BITRATES = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MP3_RATES = [44100, 48000, 32000];

function mp3LengthMs(bytes: Buffer): number | null {
  let start = 0;
  // an ID3v2 tag first: its size is four 7-bit bytes
  if (bytes.subarray(0, 3).toString("latin1") === "ID3" && bytes.length > 10)
    start = 10 + ((bytes[6] & 0x7f) << 21) + ((bytes[7] & 0x7f) << 14) + ((bytes[8] & 0x7f) << 7) + (bytes[9] & 0x7f);
  // an MPEG-1 Layer III frame header: sync, version 1, layer 3
  for (let i = start; i + 4 <= bytes.length && i < start + 4096; i++) {
    if (bytes[i] !== 0xff || (bytes[i + 1] & 0xfe) !== 0xfa) continue;
    const bitrate = MP3_BITRATES[bytes[i + 2] >> 4];
    const rate = MP3_RATES[(bytes[i + 2] >> 2) & 3];
    if (!bitrate || !rate) continue;
    const head = bytes.subarray(i, i + 64);
    const tag = Math.max(head.indexOf("Xing"), head.indexOf("Info"));
    // a Xing/Info frame with its frame count (flag 1): 1152 samples a frame
    if (tag >= 0 && i + tag + 12 <= bytes.length && bytes.readUInt32BE(i + tag + 4) & 1)
      return Math.round((bytes.readUInt32BE(i + tag + 8) * 1152 * 1000) / rate);
    return Math.round(((bytes.length - i) * 8) / bitrate);
  }
  return null;
}

/** A reply's text as LINE text messages (5,000 characters each, at most five in one request); null when longer. */
export function textMessages(text: string): messagingApi.TextMessage[] | null {
  const chars = Array.from(text);
  const messages: messagingApi.TextMessage[] = [];
  for (let i = 0; i < chars.length; i += TEXT_MAX) messages.push({ type: "text", text: chars.slice(i, i + TEXT_MAX).join("") });
  return messages.length > MESSAGES_MAX ? null : messages;
}
