// The channel layer's background work: the inbound and outbound job kinds, and each enabled
// account's watcher (IMAP polling, Graph delta).
import { defineInboundJob } from "./inbound.server";

export async function start() {
  defineInboundJob();
  return async () => {};
}
