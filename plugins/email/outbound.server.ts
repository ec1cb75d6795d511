// Agent replies as mail (the EMAIL adapter's send). Built in issue 14 (helper "mailout").
import type { ChannelAccount, OutboundMessage } from "@plugins/channels/adapter";

/** The reply as a MIME message with its threading headers (also sent by the Graph adapter). */
export async function composeReply(
  _message: OutboundMessage,
  _account: ChannelAccount,
): Promise<{ mime: Buffer; messageId: string; to: string[]; cc: string[] }> {
  throw new Error("not built yet");
}

/** Sends a reply over SMTP (the account's own server, else SMTP_RELAY_URL). */
export async function sendReplyMail(_message: OutboundMessage, _account: ChannelAccount): Promise<{ providerRef: string }> {
  throw new Error("not built yet");
}

/** Tries the account's SMTP server (or the relay). */
export async function testSmtp(_account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }> {
  return { ok: false, error: "not built yet" };
}
