// Prometheus metrics (prom-client), served at /metrics by server.ts (app/ops/http.server.ts says
// who may read them). Every label has a bounded set of values: a route's pattern, never its URL;
// a job kind, an event name, a channel from the code, never from a request. Figures are this
// node's (sockets, requests, emits); the job queue's depth is the database's, the same on each node.
import { count, inArray } from "drizzle-orm";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Server } from "socket.io";
import { getDb } from "@db/client";
import { log } from "./log.server";

function create() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const state: { io?: Server; jobKinds: Set<string> } = { jobKinds: new Set() };

  const httpDuration = new Histogram({
    name: "omnidesk_http_request_duration_seconds",
    help: "HTTP requests by route pattern (the Remix route's path, or the Express route), method and status class, from the first byte in to the last out.",
    labelNames: ["route", "method", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const httpInFlight = new Gauge({ name: "omnidesk_http_requests_in_flight", help: "HTTP requests being answered now.", registers });

  new Gauge({
    name: "omnidesk_sockets",
    help: "Connected socket.io sockets on this node, by namespace.",
    labelNames: ["namespace"] as const,
    registers,
    collect() {
      this.reset();
      for (const [name, nsp] of state.io?._nsps ?? []) this.set({ namespace: name }, nsp.sockets.size);
    },
  });
  new Gauge({
    name: "omnidesk_socket_rooms",
    help: "socket.io rooms on this node with at least one socket, by namespace (each socket's own room not counted).",
    labelNames: ["namespace"] as const,
    registers,
    collect() {
      this.reset();
      for (const [name, nsp] of state.io?._nsps ?? []) {
        let rooms = 0;
        for (const room of nsp.adapter.rooms.keys()) if (!nsp.sockets.has(room)) rooms++;
        this.set({ namespace: name }, rooms);
      }
    },
  });
  // What this measures: the time io.to(room).emit(...) takes on this node, i.e. encoding the event
  // once and queueing it on every local socket in the room (with the Redis adapter, also handing
  // it to the Redis client, not its arrival on other nodes). It is the fan-out cost the server
  // pays per event, not the time until a browser has it: network and the browser are not in it.
  const realtimeEmit = new Histogram({
    name: "omnidesk_realtime_emit_seconds",
    help: "Time to hand one event to socket.io for every local socket in its room (encode and queue; not delivery), by event.",
    labelNames: ["event"] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
    registers,
  });

  new Gauge({
    name: "omnidesk_jobs_pending",
    help: "Jobs in the durable queue not finished yet, by kind and state (queued: waiting or due; running: leased), read from the database at scrape time.",
    labelNames: ["kind", "state"] as const,
    registers,
    async collect() {
      try {
        const { db, schema } = getDb();
        const j = schema.jobs;
        const rows = await db
          .select({ kind: j.kind, state: j.state, n: count() })
          .from(j)
          .where(inArray(j.state, ["queued", "running"]))
          .groupBy(j.kind, j.state);
        this.reset();
        // kinds seen before stay at 0 instead of vanishing from the scrape
        for (const kind of state.jobKinds) for (const s of ["queued", "running"]) this.set({ kind, state: s }, 0);
        for (const row of rows) {
          state.jobKinds.add(row.kind);
          this.set({ kind: row.kind, state: row.state }, Number(row.n));
        }
      } catch (error) {
        // the database being away must not break the rest of the scrape
        this.reset();
        log.warn({ err: error }, "metrics: job queue depth not read");
      }
    },
  });
  const jobDuration = new Histogram({
    name: "omnidesk_job_duration_seconds",
    help: "Job attempts run by this node, by kind and whether the attempt finished the job (ok=false: failed or waiting).",
    labelNames: ["kind", "ok"] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });
  const jobFailures = new Counter({
    name: "omnidesk_job_failures_total",
    help: "Failed job attempts, by kind; final=true when the job was given up.",
    labelNames: ["kind", "final"] as const,
    registers,
  });

  const inboundEvents = new Counter({
    name: "omnidesk_inbound_events_total",
    help: "Customer messages received from outside, by source (smtp, imap, graph, webhook, polling), channel (provider) and whether it was new or a redelivery.",
    labelNames: ["source", "channel", "outcome"] as const,
    registers,
  });
  const smtpMessages = new Counter({
    name: "omnidesk_smtp_messages_total",
    help: "Mails sent to the built-in SMTP listener, by outcome (stored, duplicate, refused, failed; lost: the client went away during DATA).",
    labelNames: ["outcome"] as const,
    registers,
  });
  const webhookRequests = new Counter({
    name: "omnidesk_webhook_requests_total",
    help: "Webhook requests from providers' servers, by plugin, provider and outcome (accepted, refused, busy: answered 503 to be retried).",
    labelNames: ["plugin", "provider", "outcome"] as const,
    registers,
  });

  return { registry, state, httpDuration, httpInFlight, realtimeEmit, jobDuration, jobFailures, inboundEvents, smtpMessages, webhookRequests };
}

// kept on globalThis: server.ts and the Remix build are two bundles with their own copy of this file
const g = globalThis as unknown as { __omnideskMetrics?: ReturnType<typeof create> };
export const metrics = (g.__omnideskMetrics ??= create());

/** The socket gauges count the sockets of `io` (app/ops/sockets.server.ts). */
export function countSocketsOf(io: Server | undefined) {
  metrics.state.io = io;
}

export const metricsContentType = () => metrics.registry.contentType;
export const metricsText = () => metrics.registry.metrics();
