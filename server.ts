// The HTTP server: Express (compression, security headers, static assets, the Remix handler) and
// socket.io on the same port. Start with `npm start`; configuration is in README.md.
import "dotenv/config";
import path from "node:path";
import http from "node:http";
import { randomBytes } from "node:crypto";
import express from "express";
import compression from "compression";
import helmet from "helmet";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import { Server as SocketServer } from "socket.io";
import { getDb } from "./db/client";
import { seedIfEmpty } from "./app/seed/seed";
import { issueSetupToken, setupUrl } from "./app/accounts/setup.server";
import { registerRealtime, STAFF_ROOM } from "./app/realtime.server";
import { attachSocketHandlers } from "./app/socket.server";
import { sessionCookie } from "./app/cookies.server";
import { findSession, sweepSessions } from "./app/accounts/sessions.server";
import { permissionsOf } from "./app/accounts/users.server";
import { editionForHost } from "./app/models/editions.server";
import { plugins, pluginForPath, sharedFiles } from "./app/plugins/registry.server";
import { pluginExport, registerPluginModules } from "./app/plugins/modules.server";
import { mailConfigured } from "./app/mail/outbox.server";
import { startMailWorker } from "./app/mail/worker.server";
import { startBackgroundWork } from "./app/plugins/start.server";
import { translationsFile } from "./app/i18n.server";
import { isLanguage } from "./app/i18n";
import { createDrain, drainTimeoutMs } from "./app/ops/drain.server";
import { readiness } from "./app/ops/ready.server";
import { sweepRequestKeys } from "./app/request-keys.server";
import { SERVER_EVENTS } from "./app/realtime-events";
import { log } from "./app/ops/log.server";
import { observeHttp, remixRoutes, serveMetrics } from "./app/ops/http.server";
import { observeSockets } from "./app/ops/sockets.server";
import { settleSessionSecret } from "./app/ops/session-secret.server";
import { jobWorkerCount, startJobWorkers } from "./app/ops/workers.server";
import { ipcAdapter } from "./app/ops/ipc-adapter.server";
import { wholeSmallBodies } from "./app/ops/whole-small-bodies.server";

const PORT = Number(process.env.PORT || 3000);
const production = process.env.NODE_ENV === "production";

/**
 * Resolves when the response has less than 1 MB waiting to go out. Remix's adapter writes a
 * streamed body as fast as it is produced; long streams (the report export) wait on this first,
 * so a slow client cannot make the server buffer the whole body.
 */
function roomToWrite(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (res.writableLength < 1 << 20 || res.destroyed ? resolve() : setTimeout(check, 10));
    check();
  });
}

/** Same-origin check (no Origin header: not a cross-site browser request); a bad Origin fails. */
function sameOrigin(origin: string | undefined, host: string | undefined) {
  if (!origin) return true;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

function decodedPath(path: string) {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

async function main() {
  settleSessionSecret();
  const handle = getDb();
  await handle.migrate();
  await seedIfEmpty(handle);
  // an empty install (production without SEED_DEMO=1) is set up through a link only the console shows
  const setupToken = await issueSetupToken();
  if (setupToken) log.info(`First run: open ${setupUrl(setupToken, PORT)} (valid 24 hours, once)`);

  const build = (await import(path.resolve("build/index.js") as string)) as unknown as ServerBuild;
  registerPluginModules(build);
  const app = express();
  const server = http.createServer(app);
  app.disable("x-powered-by");
  app.set("trust proxy", process.env.TRUST_PROXY ? Number(process.env.TRUST_PROXY) || process.env.TRUST_PROXY : false);
  // first: every request gets its id, access line and duration (app/ops/http.server.ts)
  app.use(observeHttp(remixRoutes(build.routes)));
  // then, once stopping, no new request is taken (ADR 045)
  const drain = createDrain(server);
  app.use(drain.middleware);

  app.use((_req, res, next) => {
    res.locals.cspNonce = randomBytes(16).toString("base64");
    next();
  });
  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          "script-src": ["'self'", (_req, res) => `'nonce-${(res as express.Response).locals.cspNonce}'`],
          "style-src": ["'self'", "'unsafe-inline'"],
          "img-src": ["'self'", "data:", "blob:"],
          "connect-src": ["'self'", "ws:", "wss:"],
          "upgrade-insecure-requests": production ? [] : null,
        },
      },
      strictTransportSecurity: production,
      // "no-referrer" would make Chromium send "Origin: null" on plain form posts (see sameOrigin)
      referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    }),
  );
  // pages a plugin declares embeddable open inside other websites (the live chat's frame), and
  // those websites load the plugin's shared files (its embed script)
  const shared = sharedFiles();
  app.use((req, res, next) => {
    if (shared.has(req.path)) res.setHeader("Cross-Origin-Resource-Policy", "cross-origin");
    if (pluginForPath(decodedPath(req.path))?.embeddable) {
      res.removeHeader("X-Frame-Options");
      const csp = res.getHeader("Content-Security-Policy");
      if (typeof csp === "string") res.setHeader("Content-Security-Policy", csp.replace(/frame-ancestors [^;]*/, "frame-ancestors *"));
    }
    next();
  });
  app.use(compression());
  app.use(wholeSmallBodies());

  // alive: the process answers (a supervisor restarts it otherwise)
  app.get("/healthz", (_req, res) => res.json({ ok: true, database: handle.dialect }));
  // ready: database, Redis, migrations and the job worker all well (a balancer sends work only then)
  let redisPing: (() => Promise<unknown>) | undefined;
  let workerPassAt: (() => number) | undefined;
  app.get("/readyz", async (_req, res) => {
    const ready = await readiness({ handle, draining: () => drain.draining, redisPing, workerPassAt });
    res.status(ready.ok ? 200 : 503).json(ready);
  });

  // Fingerprinted build output never changes: cache it for a year.
  app.use("/build", express.static("public/build", { immutable: true, maxAge: "1y" }));
  // A language's texts (root's data names the file): the name carries a hash of the content, so
  // it is cached for a year; an old name (a page from before a deploy) gets today's texts, uncached.
  app.get("/locales/:file", (req, res, next) => {
    const name = /^([a-z]{2})\.([0-9a-f]{12})\.json$/.exec(req.params.file);
    if (!name || !isLanguage(name[1])) return next();
    const file = translationsFile(name[1]);
    res.set("Cache-Control", name[2] === file.hash ? "public, max-age=31536000, immutable" : "no-cache");
    res.type("json").send(file.body);
  });
  // Prometheus metrics: METRICS_TOKEN, or this machine only (app/ops/http.server.ts)
  app.get("/metrics", serveMetrics);
  app.use(express.static("public", { maxAge: "1h" }));

  app.use(async (req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    // match the decoded path, as Remix does
    const owner = pluginForPath(decodedPath(req.path));
    // providers' webhooks come from their servers; the route checks their signature
    if (!owner?.webhook && !sameOrigin(req.get("Origin"), req.get("Host"))) return res.status(403).type("text").send("Cross-origin request refused");
    // a route of a plugin that is off for this edition has no actions either (loaders: plugin-gate)
    if (owner && !(await editionForHost(req.get("Host") ?? null)).enabled.includes(owner.plugin.id)) return res.status(404).type("text").send("Not Found");
    next();
  });

  // providers' webhooks a plugin serves from Express itself (manifest `direct`, ADR 050): no Remix
  // request or route matching for calls that come by the hundred a second
  for (const plugin of plugins())
    for (const route of plugin.publicRoutes)
      if (route.direct) {
        const serve = await pluginExport<(req: express.Request, res: express.Response) => Promise<void>>(plugin.id, route.direct);
        // a failure (the database away) is a 500, as from Remix: the provider sends the call again
        app.all(route.path, (req, res, next) => void serve(req, res).catch(next));
      }

  app.all(
    "*",
    createRequestHandler({
      build,
      mode: build.mode,
      // req.ip honours TRUST_PROXY: the client address the login rate limit counts by
      getLoadContext: (req, res) => ({ cspNonce: res.locals.cspNonce as string, clientIp: req.ip ?? "unknown", roomToWrite: () => roomToWrite(res) }),
    }),
  );

  const io = new SocketServer(server, {
    serveClient: false,
    maxHttpBufferSize: 64 * 1024, // events carry ids and short texts; messages go through HTTP
    allowRequest: (req, callback) => callback(null, sameOrigin(req.headers.origin, req.headers.host)),
  });
  let closeRedis = async () => {};
  // JOB_WORKERS=n: n worker processes work the jobs (ADR 050); the web node too only with WEB_JOBS=1
  const workerCount = jobWorkerCount();
  const workers = workerCount ? startJobWorkers(workerCount) : undefined;
  // without Redis their realtime events come over IPC (with it, they publish through Redis)
  if (workers && !process.env.REDIS_URL) io.adapter(ipcAdapter(workers.link));
  if (process.env.REDIS_URL) {
    const { createClient } = await import("redis");
    const { createAdapter } = await import("@socket.io/redis-adapter");
    // a lost Redis is retried for ever, at most every 2 s; its errors are logged, never fatal
    const pub = createClient({ url: process.env.REDIS_URL, socket: { reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2_000) } });
    const sub = pub.duplicate();
    let redisLost = false;
    for (const [name, client] of [
      ["publish", pub],
      ["subscribe", sub],
    ] as const) {
      client.on("error", (error: Error) => {
        if (!redisLost) log.error({ err: error }, `redis ${name} connection lost`);
        redisLost = true;
      });
    }
    // events other nodes sent while Redis was away never reached this node's browsers: each asks
    // the database what it missed (the catch-up a reconnect does), at its own moment
    sub.on("ready", () => {
      if (!redisLost) return;
      redisLost = false;
      log.warn("redis is back: browsers of this node catch up");
      io.local.emit(SERVER_EVENTS.resync);
    });
    // A node starts (and says it is not ready) while Redis is away. The adapter is put in once both
    // clients are connected (subscribing before that confuses the client's reply queue and
    // crashed it); browsers that came meanwhile are sent to reconnect, so their rooms are shared.
    const shareRooms = () => {
      // REDIS_KEY: a prefix of its own for each deployment sharing one Redis (benches, tests)
      io.adapter(createAdapter(pub, sub, { key: process.env.REDIS_KEY || "socket.io" }));
      io.local.disconnectSockets(true);
    };
    Promise.all([pub.connect(), sub.connect()]).then(shareRooms, (error: Error) => log.error({ err: error }, "redis did not connect"));
    // not connected: not ready at once (a PING would wait in the offline queue)
    redisPing = () => (pub.isReady ? pub.ping() : Promise.reject(new Error("not connected")));
    closeRedis = async () => {
      await Promise.allSettled([pub.disconnect(), sub.disconnect()]);
    };
  }
  // Only sockets carrying a live session cookie get in; each joins its user and session rooms.
  io.use(async (socket, next) => {
    try {
      const token = await sessionCookie().parse(socket.request.headers.cookie ?? null);
      const auth = await findSession(typeof token === "string" ? token : undefined);
      if (!auth) return next(new Error("unauthorized"));
      const { user } = auth;
      socket.data.userId = user.id;
      socket.data.username = user.username;
      socket.data.name = user.name;
      socket.data.shadow = permissionsOf(user).includes("shadow_admin");
      // a department's agents hear about its tickets (lists refresh); conversations need joinRoom
      socket.join([STAFF_ROOM, `user:${user.id}`, `session:${auth.session.idHash}`, ...(user.departmentId ? [`department:${user.departmentId}`] : [])]);
      next();
    } catch (error) {
      next(error as Error);
    }
  });
  await attachSocketHandlers(io);
  registerRealtime(io);
  observeSockets(io);
  // idle and expired sessions end even when nobody makes a request with them (open tabs' sockets)
  // and request keys older than a day are forgotten
  const sweep = () => Promise.all([sweepSessions(), sweepRequestKeys()]).catch((error) => log.error({ err: error }, "sweep failed"));
  const sweeper = setInterval(() => void sweep(), 5 * 60_000);
  sweeper.unref();

  server.listen(PORT, () => log.info(`OmniDesk listening on http://localhost:${PORT} (${handle.dialect})`));
  const mailWorker = mailConfigured() ? startMailWorker() : null;
  const background = await startBackgroundWork({ runJobs: !workers || process.env.WEB_JOBS === "1" });
  workerPassAt = () => Math.max(background.workerPassAt(), workers?.lastPassAt() ?? 0);

  // Graceful stop (ADR 045): no new requests, browsers reconnect elsewhere, running requests and
  // jobs finish by the deadline (jobs still running are given back), then exit 0 (1 if cut).
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const deadline = Date.now() + drainTimeoutMs();
    const started = Date.now();
    log.warn(`${signal}: draining ${drain.running} running requests (at most ${drainTimeoutMs()} ms)`);
    drain.start();
    // this node's browsers only (with Redis, io.disconnectSockets would reach every node)
    io.local.disconnectSockets(true);
    const [requestsDone, jobsDone, workersDone = true] = await Promise.all([
      drain.settled(deadline),
      background.stop(deadline),
      workers?.stop(deadline),
      mailWorker?.stop(),
    ]);
    io.engine.close();
    await closeRedis();
    await handle.close();
    const clean = requestsDone && jobsDone && workersDone;
    log.warn(`${signal}: stopped in ${Date.now() - started} ms${clean ? "" : " (deadline passed: requests or jobs were cut)"}`);
    process.exit(clean ? 0 : 1);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

// A promise nobody awaited failed (a lost connection's write): logged, the node goes on; its
// state is known. An exception thrown out of a callback may have left anything half-done: logged,
// and the process exits so its supervisor starts a clean one.
process.on("unhandledRejection", (reason) => log.error({ err: reason }, "unhandled rejection"));
process.on("uncaughtException", (error) => {
  log.fatal({ err: error }, "uncaught exception: exiting");
  process.exit(1);
});

main().catch((error) => {
  log.fatal({ err: error }, "server did not start");
  process.exit(1);
});
