// IMAP polling of an EMAIL account's mailbox. Built in issue 14 (helper "imapgraph").
import type { ChannelAccount } from "@plugins/channels/adapter";

/** Logs in and opens the mailbox (the admin's Test button). */
export async function testImap(_account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }> {
  return { ok: false, error: "not built yet" };
}

/** Polls the mailbox until stopped; answers the stop function. */
export function watchImap(_account: ChannelAccount): () => Promise<void> {
  return async () => {};
}
