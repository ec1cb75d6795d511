// The contacts plugin's background work: every few seconds each node looks for conversations with
// no contact and, finding one, queues the linking job (link.server.ts) from it. The look starts
// where this node last found everything linked, so it stays cheap at millions of tickets; every
// ten minutes it starts from the beginning again, for a ticket whose transaction committed late.
import { warnings } from "~/ops/log.server";
import { repeatEvery } from "~/ops/repeat.server";
import { defineLinkJob, firstUnlinked, queueLinking } from "./link.server";

const LOOK_MS = 5_000;
const FULL_LOOK_MS = 10 * 60_000;

export async function start() {
  defineLinkJob();
  const log = warnings("contacts");
  let linkedThrough = 0;
  let fullLookAt = Date.now();
  const look = async () => {
    const now = Date.now();
    if (now - fullLookAt >= FULL_LOOK_MS) [linkedThrough, fullLookAt] = [0, now];
    const { first, newest } = await firstUnlinked(linkedThrough);
    if (first === undefined) linkedThrough = newest;
    else await queueLinking(first, now);
  };
  return repeatEvery(LOOK_MS, look, (error) => log("contacts: looking for conversations without a contact failed", error));
}
