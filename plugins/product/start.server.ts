// At server start: the demo workspace gets its catalogue (demo.server.ts); then, each hour, a job
// (one per hour for the whole cluster: its key is the hour) removes the images of refused forms
// that were never sent again (pending.server.ts).
import { defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import { log, warnings } from "~/ops/log.server";
import { seedDemoCatalogue } from "./demo.server";
import { PENDING_CLEANUP_JOB, removeAbandonedImages } from "./pending.server";

const LOOK_MS = 10 * 60_000;

export async function start() {
  const added = await seedDemoCatalogue();
  if (added) log.info(`Added the demo product catalogue (${added} products).`);
  defineJobKind(PENDING_CLEANUP_JOB, { run: async () => void (await removeAbandonedImages()), maxAttempts: 3 });
  const warn = warnings("product");
  const tick = () =>
    enqueue(undefined, { kind: PENDING_CLEANUP_JOB, key: `${PENDING_CLEANUP_JOB}:${Math.floor(Date.now() / 3_600_000)}` })
      .then(wakeJobs)
      .catch((error) => warn("product: queueing the image clean-up failed", error));
  void tick();
  const timer = setInterval(tick, LOOK_MS);
  timer.unref();
  return async () => clearInterval(timer);
}
