// Why a message could not go out, shared by server and browser. A channel adapter raises its
// problems as "<code>" or "<code>: <detail>" with one of these codes, so every channel's reasons
// read the same in every language; a provider's own response is shown as it came.
import type { TFunction } from "i18next";

/** How far an agent's message on a channel got ('' when it does not go out). */
export const DELIVERY_STATES = ["", "queued", "sending", "sent", "delivered", "read", "failed", "waiting"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

export const DELIVERY_ERRORS = {
  /** No server or account to send through: the message waits until one is configured. */
  notConfigured: "not-configured",
  /** The conversation has no customer address and the agent gave none. */
  noRecipient: "no-recipient",
  /** A recipient that is not an address of the channel. */
  badAddress: "bad-address",
  /** An attached file is no longer in storage. */
  attachmentMissing: "attachment-missing",
  /** The provider said "too many" to the channel account: its messages wait for the pause to end. */
  rateLimited: "rate-limited",
} as const;

const CODES = new Set<string>(Object.values(DELIVERY_ERRORS));

/**
 * The reason in the reader's language: a known code's text with its detail, a channel plugin's own
 * reason (its code is the translation key, "plugin_whatsapp.delivery.windowClosed"), else the provider's words.
 */
export function deliveryErrorText(t: TFunction, error: string | null | undefined): string {
  if (!error) return "";
  const own = /^(plugin_[a-z_]+\.delivery\.[A-Za-z]+)(?::\s*(.*))?$/s.exec(error);
  if (own) return t(own[1], { detail: own[2] ?? "" });
  const m = /^([a-z-]+)(?::\s*(.*))?$/s.exec(error);
  if (!m || !CODES.has(m[1])) return error;
  return t(`conversation.delivery.error.${m[1]}`, { detail: m[2] ?? "" });
}
