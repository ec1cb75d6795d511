// The channel layer's background work: the inbound and outbound job kinds, and each enabled
// account's watcher (IMAP polling, Graph delta), one node per account (watchers.server.ts),
// restarted when an admin changes the account.
import { defineInboundJob } from "./inbound.server";
import { defineOutboundJob } from "./outbound.server";
import { startWatchers, watcherChanged } from "./watchers.server";
import { onAccountsChanged } from "./settings.server";

export async function start() {
  defineInboundJob();
  defineOutboundJob();
  const stopWatchers = await startWatchers();
  const unsubscribe = onAccountsChanged((accountId) => watcherChanged(accountId));
  return async () => {
    unsubscribe();
    await stopWatchers();
  };
}
