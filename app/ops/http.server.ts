// HTTP requests seen by logs and metrics (server.ts mounts these first): a request id on every
// request and its lines, one access line and one histogram sample per request labelled by the
// route's pattern, and /metrics for the monitoring system only.
import { createHash, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler } from "express";
import type { ServerBuild } from "@remix-run/node";
import { matchRoutes, type AgnosticRouteObject } from "@remix-run/router";
import { log, requestId, withLogContext } from "./log.server";
import { metrics, metricsContentType, metricsText } from "./metrics.server";

export interface RouteMatch {
  /** The route's path pattern, e.g. /ticket/:id: a bounded label. */
  route: string;
  /** The path with the values of secret-looking parameters (a link's token) left as their names. */
  path: string;
}

/** Parameters whose values are credentials (single-use links, visitors' tokens): never logged. */
const SECRET_PARAM = /token|secret|key|code|hash|signature|password/i;

/** Matches a path against the Remix build's routes as Remix does (@remix-run/router). */
export function remixRoutes(routes: ServerBuild["routes"]) {
  const childrenOf = (parentId: string | undefined): AgnosticRouteObject[] =>
    Object.values(routes)
      .filter((r) => r.parentId === parentId)
      .map((r) => (r.index ? { id: r.id, index: true, path: r.path } : { id: r.id, path: r.path, caseSensitive: r.caseSensitive, children: childrenOf(r.id) }));
  // one array for the process: the router ranks an array's routes once (patches/@remix-run+router)
  const tree = childrenOf(undefined);
  // matching walks every route (0.01-0.5 ms a path); paths repeat, so answers are kept (bounded)
  const known = new Map<string, RouteMatch | null>();
  return (pathname: string): RouteMatch | null => {
    let answer = known.get(pathname);
    if (answer === undefined) {
      answer = match(pathname);
      if (known.size >= 5000) known.clear();
      known.set(pathname, answer);
    }
    return answer;
  };

  function match(pathname: string): RouteMatch | null {
    const matches = matchRoutes(tree, pathname);
    if (!matches) return null;
    const route = `/${matches.map((m) => m.route.path ?? "").join("/")}`.replace(/\/{2,}/g, "/").replace(/(.)\/$/, "$1");
    const params = matches[matches.length - 1].params;
    const path = route.replace(/:(\w+)\??|\*/g, (_segment, name?: string) => {
      if (!name) return params["*"] ?? "";
      return SECRET_PARAM.test(name) ? `:${name}` : (params[name] ?? "");
    });
    return { route, path: path.replace(/\/{2,}/g, "/").replace(/(.)\/$/, "$1") };
  }
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);
/** Probes answer often and say little: their access lines are debug. */
const PROBES = new Set(["/healthz", "/readyz", "/metrics"]);

/** The route of an answered request: an Express route's pattern, else the Remix route's; static files one label. */
function routeOf(req: Request, status: number, remix: (pathname: string) => RouteMatch | null): RouteMatch {
  const expressRoute = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof expressRoute === "string" && expressRoute !== "*") return { route: expressRoute, path: req.path };
  // answered before any route: a static file, or a refusal (cross-origin post, plugin off)
  if (!expressRoute && status < 400) return { route: req.path.startsWith("/build/") ? "/build/*" : "static", path: req.path };
  return remix(req.path) ?? { route: "unmatched", path: req.path };
}

/** Request id, access line and duration of every request. */
export function observeHttp(remix: (pathname: string) => RouteMatch | null): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const reqId = requestId(req.get("X-Request-Id"));
    res.setHeader("X-Request-Id", reqId);
    metrics.httpInFlight.inc();
    res.once("close", () => {
      metrics.httpInFlight.dec();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = res.statusCode;
      const { route, path } = routeOf(req, status, remix);
      const method = METHODS.has(req.method) ? req.method : "other";
      metrics.httpDuration.observe({ route, method, status: `${Math.floor(status / 100)}xx` }, seconds);
      // no query string: it can hold a token (a link's) or a search
      const line = { reqId, method: req.method, route, path, status, ms: Math.round(seconds * 10_000) / 10, ...(!res.writableFinished && { aborted: true }) };
      if (status >= 500) log.error(line, "request");
      else if (PROBES.has(req.path) && status < 400) log.debug(line, "request");
      else log.info(line, "request");
    });
    withLogContext({ reqId }, () => next());
  };
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Who may read /metrics: with METRICS_TOKEN set, whoever sends `Authorization: Bearer <token>`
 * (401 otherwise); without it, only a client on this machine that no proxy forwarded (404 to the
 * rest, as if there were no such page). A proxy on this machine makes every visitor look local,
 * so a forwarded request is never trusted without the token.
 */
export function metricsAccess(req: Pick<Request, "get" | "socket">, token = process.env.METRICS_TOKEN): 200 | 401 | 404 {
  if (token) {
    const sent = req.get("Authorization") ?? "";
    return timingSafeEqual(digest(sent), digest(`Bearer ${token}`)) ? 200 : 401;
  }
  const forwarded = req.get("X-Forwarded-For") || req.get("Forwarded") || req.get("X-Real-IP");
  return !forwarded && LOOPBACK.test(req.socket.remoteAddress ?? "") ? 200 : 404;
}

/** GET /metrics. */
export const serveMetrics: RequestHandler = async (req, res) => {
  const verdict = metricsAccess(req);
  if (verdict === 401) return void res.status(401).set("WWW-Authenticate", 'Bearer realm="metrics"').type("text").send("Unauthorized");
  if (verdict === 404) return void res.status(404).type("text").send("Not Found");
  try {
    res
      .set("Cache-Control", "no-store")
      .type(metricsContentType())
      .send(await metricsText());
  } catch (error) {
    log.error({ err: error }, "metrics: scrape failed");
    res.status(500).type("text").send("Metrics unavailable");
  }
};
