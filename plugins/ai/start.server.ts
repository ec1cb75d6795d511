// The AI plugin's background work: every two seconds each node looks for messages no analysis
// names yet and, finding one, queues the analysis job (analysis.server.ts), which reads them
// newest first, up to a thousand a job. The look
// starts where this node last found everything read, so it stays cheap however many messages
// there are; every ten minutes it starts from the beginning again, for a message whose
// transaction committed late. Nothing here runs on the request path: a reply is never slower.
import { warnings } from "~/ops/log.server";
import { repeatEvery } from "~/ops/repeat.server";
import { defineAnalyseJob, newestMessageId, pendingMessages, queueAnalysis } from "./analysis.server";
import { aiSettings } from "./settings.server";
import { defineCallVoiceJob } from "./voice-call.server";
import { defineCallScamJob, queueCallScamBackfill } from "./call-scam.server";

const LOOK_MS = 2_000;
const FULL_LOOK_MS = 10 * 60_000;

export async function start() {
  defineAnalyseJob();
  defineCallVoiceJob();
  defineCallScamJob();
  const log = warnings("ai");
  // once at each start: calls transcribed before the scam check existed get it (call-scam.server.ts)
  await queueCallScamBackfill("start").catch((error) => log("ai: queueing the calls' scam check backfill failed", error));
  let readThrough = 0;
  let fullLookAt = Date.now();
  const look = async () => {
    if ((await aiSettings()).adapter === "off") return;
    const now = Date.now();
    if (now - fullLookAt >= FULL_LOOK_MS) [readThrough, fullLookAt] = [0, now];
    const newest = await newestMessageId();
    const [first] = await pendingMessages(readThrough, 1);
    if (!first) readThrough = newest;
    else await queueAnalysis(first.id, readThrough, now);
  };
  return repeatEvery(LOOK_MS, look, (error) => log("ai: looking for messages to analyse failed", error));
}
