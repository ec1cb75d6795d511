// Mail in from a Microsoft 365 mailbox: Graph's delta query on the inbox. The first round lists
// every message (pages of @odata.nextLink), the last page hands an @odata.deltaLink that answers
// only what changed since. The link to go on from is kept in the account's cursor after each
// page's mails are recorded, so a restart goes on where it stopped; a mail stored already (its
// internetMessageId, however it came) is skipped without fetching its MIME.
import { Readable } from "node:stream";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { readCursor, setAccountState, writeCursor } from "@plugins/channels/accounts.server";
import { MAIL_PROVIDER, mailEventKey } from "../event-key";
import { hasInboundEvent } from "@plugins/channels/inbound.server";
import { pollLoop } from "@plugins/channels/poll-loop.server";
import { storeFetchedMail } from "../store-mail.server";
import { describeGraphError, GraphError, graphFetch } from "./client.server";

export const GRAPH_CURSOR = "graph-delta";
const pollMs = () => Number(process.env.GRAPH_POLL_MS) || 60_000;

interface DeltaPage {
  value?: { id: string; internetMessageId?: string | null; "@removed"?: unknown }[];
  "@odata.nextLink"?: string;
  "@odata.deltaLink"?: string;
}

const firstRound = "/mailFolders/inbox/messages/delta?$select=id,internetMessageId";

/** One round of the delta query: records every new mail; answers what it did. */
export async function pollGraph(account: ChannelAccount, hooks: { stopped?(): boolean } = {}) {
  const result = { pages: 0, seen: 0, stored: 0, skipped: 0 };
  let link = (await readCursor(account.id, GRAPH_CURSOR)) || firstRound;
  for (;;) {
    let response: Response;
    try {
      response = await graphFetch(account, link, { headers: { prefer: "odata.maxpagesize=50" } });
    } catch (error) {
      // a delta link too old (410 Gone, or a sync state Graph forgot): start over, keys dedupe
      if (error instanceof GraphError && (error.status === 410 || /SyncState/i.test(error.code)) && link !== firstRound) {
        link = firstRound;
        continue;
      }
      throw error;
    }
    const page = (await response.json()) as DeltaPage;
    result.pages++;
    for (const item of page.value ?? []) {
      if (hooks.stopped?.()) return result;
      // deletions and moves out of the inbox: nothing to store
      if (item["@removed"]) continue;
      result.seen++;
      const messageId = item.internetMessageId;
      if (messageId && (await hasInboundEvent(MAIL_PROVIDER, mailEventKey(messageId, "")))) {
        result.skipped++;
        continue;
      }
      const mime = await graphFetch(account, `/messages/${encodeURIComponent(item.id)}/$value`);
      if (!mime.body) throw new Error("Microsoft Graph sent no MIME content");
      const recorded = await storeFetchedMail({
        accountId: account.id,
        source: "graph",
        messageId,
        content: Readable.fromWeb(mime.body as import("node:stream/web").ReadableStream),
        meta: { graphId: item.id },
      });
      if (recorded.duplicate) result.skipped++;
      else result.stored++;
    }
    const next = page["@odata.nextLink"] ?? page["@odata.deltaLink"];
    if (!next) throw new Error("Microsoft Graph's delta answer had neither a nextLink nor a deltaLink");
    // this page's mails are committed: go on from the next page, or from the delta link next time
    await writeCursor(account.id, GRAPH_CURSOR, next);
    link = next;
    if (!page["@odata.nextLink"] || hooks.stopped?.()) return result;
  }
}

/** Runs the delta query every GRAPH_POLL_MS (default 60 s) until stopped. */
export function watchGraph(account: ChannelAccount): () => Promise<void> {
  return pollLoop({
    accountId: account.id,
    intervalMs: pollMs(),
    pass: async (stopped) => {
      await pollGraph(account, { stopped });
    },
    setState: (outcome) => setAccountState(account.id, outcome),
    describe: describeGraphError,
  });
}
