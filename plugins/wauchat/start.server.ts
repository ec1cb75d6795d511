// The bot's background work: its answer job, and its responder on the channel layer's seam.
import { registerResponder } from "@plugins/channels/responders.server";
import { defineAnswerJob, responder } from "./bot.server";

export async function start() {
  defineAnswerJob();
  const unregister = registerResponder("wauchat", responder);
  return async () => unregister();
}
