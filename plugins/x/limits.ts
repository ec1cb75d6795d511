// What X takes from an agent, checked before anything is sent. Delivery errors are translation keys
// of this plugin's texts ("plugin_x.delivery.postTooLong: 312"), shown by deliveryErrorText.
import type { StoredFile } from "~/conversation/model.server";

export const POST_TOO_LONG = "plugin_x.delivery.postTooLong";
export const DM_TOO_LONG = "plugin_x.delivery.dmTooLong";
export const FILE_TYPE = "plugin_x.delivery.fileType";
export const FILE_SIZE = "plugin_x.delivery.fileSize";

/** A post's limit, in X's weighted characters (twitter-text: most scripts 1, CJK and emoji 2, a link 23). */
export const POST_MAX = 280;
/** A direct message's limit, in characters. */
export const DM_MAX = 10_000;

const MB = 1024 * 1024;
/** What X's media upload takes, per type: pictures 5 MB, GIFs 15 MB, MP4 video 512 MB (one per message or post). */
const MEDIA: Record<string, { max: number; kind: "image" | "gif" | "video" }> = {
  "image/jpeg": { max: 5 * MB, kind: "image" },
  "image/png": { max: 5 * MB, kind: "image" },
  "image/webp": { max: 5 * MB, kind: "image" },
  "image/gif": { max: 15 * MB, kind: "gif" },
  "video/mp4": { max: 512 * MB, kind: "video" },
};

/** Code points twitter-text weighs 1 (Latin, Greek, Cyrillic, ... and general punctuation); everything else weighs 2. */
const LIGHT: [number, number][] = [
  [0, 4351],
  [8192, 8205],
  [8208, 8223],
  [8242, 8247],
];
const URL = /https?:\/\/[^\s]+/g;

/** A post's length as X counts it (twitter-text v3): links 23 each, light code points 1, others (CJK, emoji) 2. */
export function postLength(text: string) {
  let length = 0;
  const rest = text.normalize("NFC").replace(URL, () => {
    length += 23;
    return "";
  });
  for (const char of rest) {
    const cp = char.codePointAt(0)!;
    length += LIGHT.some(([a, b]) => cp >= a && cp <= b) ? 1 : 2;
  }
  return length;
}

/** Why X cannot be sent this file, or null. */
export function fileProblem(file: Pick<StoredFile, "name" | "type" | "size">) {
  const media = MEDIA[file.type.toLowerCase()];
  if (!media) return `${FILE_TYPE}: ${file.name}`;
  if (file.size > media.max) return `${FILE_SIZE}: ${file.name}`;
  return null;
}

/** The media upload's category of a file going into a DM or a post (dm_image, tweet_video, ...). */
export const mediaCategory = (type: string, place: "dm" | "tweet") => `${place}_${MEDIA[type.toLowerCase()]?.kind ?? "image"}`;
