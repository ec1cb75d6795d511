// The SLA engine's background work: the job kind, and a job queued every few seconds under a key
// per time slot (one per slot for the whole cluster, whichever node queues it first) that follows
// the tickets and sends what is due (engine.server.ts).
import { defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import { warnings } from "~/ops/log.server";
import { SLA_JOB, tick } from "./engine.server";

/** Seconds between passes (SLA_TICK_SECONDS, default 10). */
const SLOT_MS = Math.max(1, Number(process.env.SLA_TICK_SECONDS) || 10) * 1000;

export async function start() {
  defineJobKind(SLA_JOB, { run: async () => void (await tick()), maxAttempts: 3 });
  const log = warnings("sla");
  const queue = () =>
    enqueue(undefined, { kind: SLA_JOB, key: `${SLA_JOB}:${Math.floor(Date.now() / SLOT_MS)}` })
      .then(wakeJobs)
      .catch((error) => log("sla: queueing the pass failed", error));
  void queue();
  const timer = setInterval(queue, SLOT_MS);
  timer.unref();
  return async () => clearInterval(timer);
}
