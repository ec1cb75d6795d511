// The calendar's background work: the reminder job kind, and a job queued each minute (one per
// minute for the whole cluster: its key is the minute) that sends the reminders then due; and the
// same each minute for moving tickets' appointment_at on to a repeating appointment's next occurrence.
import { defineJobKind, enqueue, wakeJobs } from "~/jobs/queue.server";
import { warnings } from "~/ops/log.server";
import { getSettings } from "~/models/settings.server";
import { REMINDER_JOB, sendDueReminders } from "./reminders.server";
import { advanceTicketAppointments } from "./calendar.server";

export const ADVANCE_JOB = "calendar.advance";

const LOOK_MS = 30_000;

export async function start() {
  defineJobKind(REMINDER_JOB, { run: async () => void (await sendDueReminders()), maxAttempts: 3 });
  defineJobKind(ADVANCE_JOB, { run: async () => void (await advanceTicketAppointments((await getSettings()).timezone)), maxAttempts: 3 });
  const log = warnings("calendar");
  const minute = () => Math.floor(Date.now() / 60_000);
  const tick = () =>
    enqueue(undefined, { kind: REMINDER_JOB, key: `${REMINDER_JOB}:${minute()}` })
      .then(() => enqueue(undefined, { kind: ADVANCE_JOB, key: `${ADVANCE_JOB}:${minute()}` }))
      .then(wakeJobs)
      .catch((error) => log("calendar: queueing the reminders failed", error));
  void tick();
  const timer = setInterval(tick, LOOK_MS);
  timer.unref();
  return async () => clearInterval(timer);
}
