// The campaign plugin's background work: the sending job, and the responder that opts out a
// customer who writes STOP on a messaging channel.
import { registerOptOutResponder } from "./optout.server";
import { defineSendJob } from "./send.server";

export async function start() {
  defineSendJob();
  const unregister = registerOptOutResponder();
  return async () => unregister();
}
