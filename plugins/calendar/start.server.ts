// The calendar's background work: the reminder job kind, and a job queued each minute (one per
// minute for the whole cluster: its key is the minute) that sends the reminders then due.
import { defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import { warnings } from "~/ops/log.server";
import { REMINDER_JOB, sendDueReminders } from "./reminders.server";

const LOOK_MS = 30_000;

export async function start() {
  defineJobKind(REMINDER_JOB, { run: async () => void (await sendDueReminders()), maxAttempts: 3 });
  const log = warnings("calendar");
  const tick = () =>
    enqueue(undefined, { kind: REMINDER_JOB, key: `${REMINDER_JOB}:${Math.floor(Date.now() / 60_000)}` })
      .then(wakeJobs)
      .catch((error) => log("calendar: queueing the reminders failed", error));
  void tick();
  const timer = setInterval(tick, LOOK_MS);
  timer.unref();
  return async () => clearInterval(timer);
}
