// Graceful stop (ADR 045). On SIGTERM the node takes no new connection and no new request on a
// kept-alive one (answered 503 with Connection: close, nothing done, so the client or the balancer
// sends it elsewhere); requests already running finish and their answers close the connection;
// then the caller stops the rest. Without this a keep-alive client kept the server busy until a
// forced exit cut requests whose writes had been committed, and the client's retry stored them twice.
import type http from "node:http";
import type { RequestHandler } from "express";

/** How long running requests and jobs may take to finish after SIGTERM (DRAIN_TIMEOUT_MS, default 25 s). */
export const drainTimeoutMs = () => Number(process.env.DRAIN_TIMEOUT_MS) || 25_000;

export function createDrain(server: http.Server) {
  let draining = false;
  const running = new Set<http.ServerResponse>();
  const settledWaiters = new Set<() => void>();
  const checkSettled = () => {
    if (draining && running.size === 0) for (const done of settledWaiters) done();
  };

  /** First in the chain: counts the requests running; refuses new ones once draining. */
  const middleware: RequestHandler = (_req, res, next) => {
    if (draining) {
      res.setHeader("Connection", "close");
      res.setHeader("Retry-After", "1");
      res.status(503).type("text").send("Restarting: try again");
      return;
    }
    running.add(res);
    res.on("close", () => {
      running.delete(res);
      // its connection is idle now: closed, so a kept-alive client cannot send another here
      if (draining) setImmediate(() => server.closeIdleConnections());
      checkSettled();
    });
    next();
  };

  return {
    middleware,
    get draining() {
      return draining;
    },
    get running() {
      return running.size;
    },
    /** Stops taking connections and requests; the running ones are told to close after their answer. */
    start() {
      draining = true;
      for (const res of running) if (!res.headersSent) res.setHeader("Connection", "close");
      server.close();
      server.closeIdleConnections();
    },
    /** Resolves true when every running request has answered, false at the deadline (then they are cut). */
    settled(deadline: number): Promise<boolean> {
      return new Promise((resolve) => {
        const timer = setTimeout(
          () => {
            settledWaiters.delete(done);
            server.closeAllConnections();
            resolve(false);
          },
          Math.max(0, deadline - Date.now()),
        );
        const done = () => {
          clearTimeout(timer);
          settledWaiters.delete(done);
          resolve(true);
        };
        settledWaiters.add(done);
        checkSettled();
      });
    },
  };
}
