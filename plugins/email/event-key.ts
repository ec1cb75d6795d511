// The inbound event key of a mail (plugins/channels inbound_events, provider "email"): its
// Message-ID when it has one, so the same mail fetched over IMAP three times and delivered once
// over SMTP is one event; else a hash of its bytes.
import { normalizeMessageId } from "./threading";

export const MAIL_PROVIDER = "email";

export function mailEventKey(messageId: string | null | undefined, sha256OfBytes: string): string {
  const id = normalizeMessageId(messageId);
  return id ? `mid:${id}` : `sha256:${sha256OfBytes}`;
}
