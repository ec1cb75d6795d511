// What an SMS goes out as, whichever gateway: text up to Twilio's 1,600 characters (a longer
// message is refused, not cut), files as MMS within Twilio's documented limits (5 MB, the content
// types it accepts). Refused before anything is sent, with this plugin's delivery texts.
export const BODY_MAX = 1600;
export const MMS_MAX_BYTES = 5 * 1024 * 1024;
/** A customer's MMS file is read no further than this (carriers deliver at most a few MB): a gateway's bigger answer is refused. */
export const INBOUND_MEDIA_MAX = 20 * 1024 * 1024;
/** Numbers one bulk send of the /sms page may reach. */
export const RECIPIENTS_MAX = 100;
/** The /sms page's form fields. */
export const FIELDS = ["account", "to", "message"] as const;

/** Delivery errors: translation keys of this plugin's texts (app/conversation/delivery.ts shows them). */
export const TOO_LONG = "plugin_sms.delivery.tooLong";
export const FILE_TYPE = "plugin_sms.delivery.fileType";
export const FILE_SIZE = "plugin_sms.delivery.fileSize";
export const NO_PUBLIC_URL = "plugin_sms.delivery.noPublicUrl";

/** The content types Twilio takes for MMS (docs: "Accepted content types for media"). */
const MMS_TYPES = new Set([
  "image/jpeg",
  "image/jpg",
  "image/gif",
  "image/png",
  "image/bmp",
  "image/tiff",
  "image/heic",
  "image/heif",
  "audio/basic",
  "audio/l24",
  "audio/mp4",
  "audio/mpeg",
  "audio/ogg",
  "audio/aac",
  "audio/vnd.wave",
  "audio/3gpp",
  "audio/3gpp2",
  "audio/ac3",
  "audio/webm",
  "audio/amr-nb",
  "audio/amr",
  "video/mpeg",
  "video/mp4",
  "video/quicktime",
  "video/webm",
  "video/3gpp",
  "video/3gpp2",
  "video/h264",
  "text/vcard",
  "text/x-vcard",
  "text/csv",
  "text/rtf",
  "text/calendar",
  "application/pdf",
  "application/vcard",
]);

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** Why an MMS could not carry this file, or null. */
export function fileProblem(file: { type: string; size: number; name: string }) {
  if (file.size > MMS_MAX_BYTES) return `${FILE_SIZE}: ${file.name} (${megabytes(file.size)} > ${megabytes(MMS_MAX_BYTES)})`;
  if (!MMS_TYPES.has(file.type.split(";")[0].trim().toLowerCase())) return `${FILE_TYPE}: ${file.name} (${file.type})`;
  return null;
}

/** Why a text could not go out as one SMS, or null. */
export const textProblem = (text: string) => (text.length > BODY_MAX ? `${TOO_LONG}: ${text.length} > ${BODY_MAX}` : null);
