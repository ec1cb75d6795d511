// The channel layer's background work: the inbound and outbound job kinds, and each enabled
// account's watcher (IMAP polling, Graph delta).
import { defineInboundJob } from "./inbound.server";
import { defineOutboundJob } from "./outbound.server";

export async function start() {
  defineInboundJob();
  defineOutboundJob();
  return async () => {};
}
