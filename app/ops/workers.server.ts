// Job worker processes (ADR 050): JOB_WORKERS=n makes the web node fork n copies of
// build/worker.js, which work the job queue (the queue leases each job to one of them) while the
// web node's one thread answers requests. The web node tells them when a job was queued (a
// webhook's events: at once instead of at their next poll), carries their realtime events to the
// browsers (ipc-adapter.server.ts, without Redis), starts again one that died, and on SIGTERM
// stops them with its own drain: each finishes or gives back its jobs by the deadline.
import path from "node:path";
import { fork, type ChildProcess } from "node:child_process";
import { onWakeJobs } from "~/jobs/queue.server";
import { log } from "./log.server";
import { childrenLink } from "./ipc-adapter.server";

/** Messages between the web node and its workers beside the realtime adapter's. */
export const WORKER_WAKE = "omnidesk:wake";
export const WORKER_PASS = "omnidesk:pass";

/** JOB_WORKERS: how many worker processes the web node forks (0: it works the jobs itself). */
export const jobWorkerCount = () => Math.max(0, Math.min(32, Number(process.env.JOB_WORKERS) || 0));

export function startJobWorkers(count: number, file = path.resolve("build/worker.js")) {
  const link = childrenLink();
  const children = new Set<ChildProcess>();
  let stopping = false;
  let passAt = 0;

  const spawnOne = (index: number) => {
    // the web node's environment (its settled SESSION_SECRET too); advanced: Buffers in events survive
    const child = fork(file, [], { env: { ...process.env, JOB_WORKER_INDEX: String(index) }, serialization: "advanced", stdio: "inherit" });
    children.add(child);
    link.add(child);
    child.on("message", (value) => {
      const message = value as { tag?: string; at?: number } | null;
      if (message?.tag === WORKER_PASS) passAt = Math.max(passAt, Number(message.at) || 0);
    });
    child.once("exit", (code, signal) => {
      children.delete(child);
      if (stopping) return;
      log.error({ code, signal, index }, "job worker process exited: starting another");
      setTimeout(() => !stopping && spawnOne(index), 1_000).unref();
    });
  };
  for (let i = 0; i < count; i++) spawnOne(i);

  // one wake message per turn of the event loop, however many jobs were queued in it
  let waking = false;
  const stopWaking = onWakeJobs(() => {
    if (waking) return;
    waking = true;
    setImmediate(() => {
      waking = false;
      for (const child of children) if (child.connected) child.send({ tag: WORKER_WAKE }, (error) => void error);
    });
  });

  return {
    /** The realtime adapter's link (without Redis: io.adapter(ipcAdapter(link))). */
    link,
    /** When a worker last finished a pass (readiness). */
    lastPassAt: () => passAt,
    /** SIGTERM to each; resolves whether all exited cleanly (0) by the deadline (then they are killed). */
    async stop(deadline: number) {
      stopping = true;
      stopWaking();
      const exits = [...children].map(
        (child) =>
          new Promise<boolean>((resolve) => {
            if (child.exitCode !== null || child.signalCode) return resolve(child.exitCode === 0);
            const timer = setTimeout(() => child.kill("SIGKILL"), Math.max(0, deadline - Date.now()) + 1_000);
            child.once("exit", (code) => {
              clearTimeout(timer);
              resolve(code === 0);
            });
            child.kill("SIGTERM");
          }),
      );
      return (await Promise.all(exits)).every(Boolean);
    },
  };
}
