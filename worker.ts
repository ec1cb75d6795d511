// A job worker process (ADR 050): works the durable job queue, and nothing else of the web node's
// (no HTTP, no sockets of its own). Forked by the web node with JOB_WORKERS=n, or started on its
// own with `npm run worker` (any number, on any machine reaching the database; with Redis for its
// realtime events). Jobs' realtime events reach the browsers through the web node: over Redis
// when REDIS_URL is set, else over the IPC channel to the web node that forked it.
import "dotenv/config";
import path from "node:path";
import type { ServerBuild } from "@remix-run/node";
import { Server as SocketServer } from "socket.io";
import { getDb } from "./db/client";
import { registerPluginModules } from "./app/plugins/modules.server";
import { startBackgroundWork } from "./app/plugins/start.server";
import { registerRealtime } from "./app/realtime.server";
import { wakeJobs } from "./app/jobs/queue.server";
import { drainTimeoutMs } from "./app/ops/drain.server";
import { ipcAdapter, parentLink } from "./app/ops/ipc-adapter.server";
import { settleSessionSecret } from "./app/ops/session-secret.server";
import { WORKER_PASS, WORKER_WAKE } from "./app/ops/workers.server";
import { log } from "./app/ops/log.server";

async function main() {
  settleSessionSecret();
  // the SMTP listener is the web node's: a worker takes no connections
  process.env.SMTP_LISTEN_PORT = "off";
  const handle = getDb();
  // SQLite has one writer, and a process waiting for the lock is frozen (busy_timeout): a worker
  // running several jobs at once would hold the lock while another job of it computes, freezing
  // the web node's answers meanwhile. One job at a time keeps each hold to a transaction's own work.
  if (handle.dialect === "sqlite" && !process.env.JOB_CONCURRENCY) process.env.JOB_CONCURRENCY = "1";
  // the web node (or whoever deploys) runs the migrations; a worker waits for none
  const build = (await import(path.resolve("build/index.js") as string)) as unknown as ServerBuild;
  registerPluginModules(build);

  // an io without a server: emits and fetchSockets go to the nodes holding the sockets
  const io = new SocketServer();
  let closeRedis = async () => {};
  if (process.env.REDIS_URL) {
    const { createClient } = await import("redis");
    const { createAdapter } = await import("@socket.io/redis-adapter");
    const pub = createClient({ url: process.env.REDIS_URL, socket: { reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2_000) } });
    const sub = pub.duplicate();
    for (const client of [pub, sub]) client.on("error", (error: Error) => log.error({ err: error }, "worker: redis connection lost"));
    await Promise.all([pub.connect(), sub.connect()]);
    io.adapter(createAdapter(pub, sub, { key: process.env.REDIS_KEY || "socket.io" }));
    closeRedis = async () => void (await Promise.allSettled([pub.disconnect(), sub.disconnect()]));
  } else if (process.send) io.adapter(ipcAdapter(parentLink()));
  else log.warn("worker: no REDIS_URL and no web node: realtime events of jobs reach no browser");
  registerRealtime(io);

  const background = await startBackgroundWork();
  // the web node says when it queued a job; this worker tells it how its passes go (readiness)
  process.on("message", (value) => {
    if ((value as { tag?: string } | null)?.tag === WORKER_WAKE) wakeJobs();
  });
  const reportPass = setInterval(() => process.send?.({ tag: WORKER_PASS, at: background.workerPassAt() }, (error) => void error), 5_000);
  reportPass.unref();
  log.info(`job worker ${process.env.JOB_WORKER_INDEX ?? ""} working (${handle.dialect})`.replace("  ", " "));

  // Graceful stop (ADR 045): claims nothing more, running jobs finish by the deadline or are given back
  let stopping = false;
  const shutdown = async (why: string) => {
    if (stopping) return;
    stopping = true;
    const finished = await background.stop(Date.now() + drainTimeoutMs());
    clearInterval(reportPass);
    io.close();
    await closeRedis();
    await handle.close();
    log.warn(`job worker: ${why}: stopped${finished ? "" : " (deadline passed: jobs were given back)"}`);
    process.exit(finished ? 0 : 1);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
  // the web node that forked it is gone: stop too
  process.on("disconnect", () => void shutdown("web node gone"));
}

process.on("unhandledRejection", (reason) => log.error({ err: reason }, "unhandled rejection"));
process.on("uncaughtException", (error) => {
  log.fatal({ err: error }, "uncaught exception: exiting");
  process.exit(1);
});

main().catch((error) => {
  log.fatal({ err: error }, "job worker did not start");
  process.exit(1);
});
