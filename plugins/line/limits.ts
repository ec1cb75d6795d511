// What LINE takes from an agent, checked before anything is sent. Delivery errors are translation
// keys of this plugin's texts (app/conversation/delivery.ts deliveryErrorText shows them).
import type { messagingApi } from "@line/bot-sdk";

/**
 * LINE takes pictures, videos and audio only as https addresses it fetches itself
 * (originalContentUrl / previewImageUrl), and no documents at all. This desk serves attachments only
 * to signed-in users (app/conversation/routes/file.ts) and has no public, signed file address yet,
 * so a file cannot go out on LINE: refused before anything is sent.
 */
export const NO_FILES = "plugin_line.delivery.noFiles";
export const TEXT_TOO_LONG = "plugin_line.delivery.textTooLong";

/** A text message's limit, in characters. */
export const TEXT_MAX = 5000;
/** Messages one reply or push request may carry. */
export const MESSAGES_MAX = 5;

/** Why LINE cannot be sent this file (always, see NO_FILES). */
export const fileProblem = (file: { name: string }) => `${NO_FILES}: ${file.name}`;

/** A reply's text as LINE text messages (5,000 characters each, at most five in one request); null when longer. */
export function textMessages(text: string): messagingApi.TextMessage[] | null {
  const chars = Array.from(text);
  const messages: messagingApi.TextMessage[] = [];
  for (let i = 0; i < chars.length; i += TEXT_MAX) messages.push({ type: "text", text: chars.slice(i, i + TEXT_MAX).join("") });
  return messages.length > MESSAGES_MAX ? null : messages;
}
