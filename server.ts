// The HTTP server: Express (compression, security headers, static assets, the Remix handler) and
// socket.io on the same port. Start with `npm start`; configuration is in README.md.
import "dotenv/config";
import fs from "node:fs";
import path from "node:path";
import http from "node:http";
import { randomBytes } from "node:crypto";
import express from "express";
import compression from "compression";
import helmet from "helmet";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import { Server as SocketServer } from "socket.io";
import { getDb, dataDir } from "./db/client";
import { seedIfEmpty } from "./app/seed/seed";
import { issueSetupToken, setupUrl } from "./app/accounts/setup.server";
import { registerRealtime, STAFF_ROOM } from "./app/realtime.server";
import { attachSocketHandlers } from "./app/socket.server";
import { sessionCookie } from "./app/cookies.server";
import { findSession, sweepSessions } from "./app/accounts/sessions.server";
import { permissionsOf } from "./app/accounts/users.server";
import { editionForHost } from "./app/models/editions.server";
import { pluginForPath, sharedFiles } from "./app/plugins/registry.server";
import { registerPluginModules } from "./app/plugins/modules.server";
import { mailConfigured } from "./app/mail/outbox.server";
import { startMailWorker } from "./app/mail/worker.server";
import { startBackgroundWork } from "./app/plugins/start.server";

const PORT = Number(process.env.PORT || 3000);
const production = process.env.NODE_ENV === "production";

/** Signing secret for cookies: from the environment, or generated once and kept in DATA_DIR. */
function settleSessionSecret() {
  // links in mail (invites, password resets) and the single sign-on address must not follow a
  // forged Host header
  if (production && !process.env.BASE_URL)
    throw new Error("BASE_URL must be set when NODE_ENV=production (the address users reach, e.g. https://desk.example.com)");
  if (process.env.SESSION_SECRET) return;
  if (production) throw new Error("SESSION_SECRET must be set when NODE_ENV=production");
  const file = path.join(dataDir(), "session-secret");
  fs.mkdirSync(dataDir(), { recursive: true });
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600 });
  process.env.SESSION_SECRET = fs.readFileSync(file, "utf8").trim();
}

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
  if (setupToken) console.log(`First run: open ${setupUrl(setupToken, PORT)} (valid 24 hours, once)`);

  const build = (await import(path.resolve("build/index.js") as string)) as unknown as ServerBuild;
  registerPluginModules(build);
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", process.env.TRUST_PROXY ? Number(process.env.TRUST_PROXY) || process.env.TRUST_PROXY : false);

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

  app.get("/healthz", async (_req, res) => {
    try {
      await handle.db.select().from(handle.schema.settings).limit(1);
      res.json({ ok: true, database: handle.dialect });
    } catch (error) {
      console.error("healthz:", error);
      res.status(503).json({ ok: false });
    }
  });

  // Fingerprinted build output never changes: cache it for a year.
  app.use("/build", express.static("public/build", { immutable: true, maxAge: "1y" }));
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

  app.all(
    "*",
    createRequestHandler({
      build,
      mode: build.mode,
      // req.ip honours TRUST_PROXY: the client address the login rate limit counts by
      getLoadContext: (req, res) => ({ cspNonce: res.locals.cspNonce as string, clientIp: req.ip ?? "unknown", roomToWrite: () => roomToWrite(res) }),
    }),
  );

  const server = http.createServer(app);
  const io = new SocketServer(server, {
    serveClient: false,
    maxHttpBufferSize: 64 * 1024, // events carry ids and short texts; messages go through HTTP
    allowRequest: (req, callback) => callback(null, sameOrigin(req.headers.origin, req.headers.host)),
  });
  if (process.env.REDIS_URL) {
    const { createClient } = await import("redis");
    const { createAdapter } = await import("@socket.io/redis-adapter");
    const pub = createClient({ url: process.env.REDIS_URL });
    const sub = pub.duplicate();
    await Promise.all([pub.connect(), sub.connect()]);
    io.adapter(createAdapter(pub, sub));
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
  // idle and expired sessions end even when nobody makes a request with them (open tabs' sockets)
  const sweeper = setInterval(() => void sweepSessions().catch((error) => console.error("session sweep failed", error)), 5 * 60_000);
  sweeper.unref();

  server.listen(PORT, () => console.log(`OmniDesk listening on http://localhost:${PORT} (${handle.dialect})`));
  if (mailConfigured()) startMailWorker();
  const stopBackgroundWork = await startBackgroundWork();

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 10_000).unref();
    // io.close disconnects every socket, then closes the HTTP server
    io.close(async () => {
      await stopBackgroundWork();
      await handle.close();
      clearTimeout(force);
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
