// The channel layer's background work: the inbound and outbound job kinds, and each enabled
// account's watcher (IMAP polling, Graph delta), one node per account (watchers.server.ts).
import { defineInboundJob } from "./inbound.server";
import { startWatchers } from "./watchers.server";

export async function start() {
  defineInboundJob();
  const stopWatchers = await startWatchers();
  return async () => {
    await stopWatchers();
  };
}
