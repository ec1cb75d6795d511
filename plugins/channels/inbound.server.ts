// Inbound events: whatever a provider hands us is stored and committed before the provider is
// acknowledged (the SMTP 250, the webhook's 200, the IMAP cursor moving on), with a job that makes
// it a message. The unique (provider, event key) makes a redelivery a no-op, so nothing is lost
// and nothing is doubled, whichever way and however often it arrives.
import { Readable } from "node:stream";
import { and, eq } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { enqueue, wakeJobs, defineJobKind } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { metrics } from "~/ops/metrics.server";
import { adapterFor } from "./adapters.server";
import { loadAccount } from "./accounts.server";
import { defineMediaJob } from "./pending-media.server";

export const INBOUND_JOB = "channels.inbound";

/** The job lane of one customer's messages on an account: written one at a time, in the order they came. */
export const inboundLane = (accountId: number, customer: string) => `in:${accountId}:${customer}`;

export interface InboundInput {
  accountId: number | null;
  /** Whose key space eventKey is in ("email" for mail however it came, so SMTP and IMAP copies are one). */
  provider: string;
  eventKey: string;
  /** smtp, imap, graph, webhook */
  source: string;
  /** What the transport knew (SMTP: ip, helo, mailFrom, rcptTo); handed to the adapter with the event. */
  meta?: Record<string, unknown>;
}

/** Whether an event is stored already (lets a poller skip fetching a body it has). */
export async function hasInboundEvent(provider: string, eventKey: string) {
  const { db, schema } = getDb();
  const e = schema.inboundEvents;
  const [row] = await db
    .select({ id: e.id })
    .from(e)
    .where(and(eq(e.provider, provider), eq(e.eventKey, eventKey)))
    .limit(1);
  return !!row;
}

/**
 * Records an event whose raw bytes are already in file storage (rawKey): the event and its job in
 * one transaction. A duplicate keeps the first copy and drops this one's bytes.
 */
export async function recordInboundEvent(input: InboundInput & { rawKey: string | null; size: number }) {
  const handle = getDb();
  const { schema } = handle;
  const created = await handle.transaction(async (tx) => {
    const [row] = await tx
      .insert(schema.inboundEvents)
      .values({ ...input, meta: JSON.stringify(input.meta ?? {}), receivedAt: Date.now() })
      .onConflictDoNothing()
      .returning({ id: schema.inboundEvents.id });
    if (row) await enqueue(tx, { kind: INBOUND_JOB, key: `inbound:${row.id}`, payload: { eventId: row.id } });
    return row;
  });
  metrics.inboundEvents.inc({ source: input.source, channel: input.provider, outcome: created ? "new" : "duplicate" });
  if (!created) {
    if (input.rawKey) await fileStorage().remove(input.rawKey);
    return { duplicate: true as const };
  }
  wakeJobs();
  return { duplicate: false as const, eventId: created.id };
}

/** Stores a small event's bytes (a webhook's body), then records it. */
export async function storeInboundEvent(input: InboundInput & { raw: Uint8Array | string }) {
  const bytes = typeof input.raw === "string" ? Buffer.from(input.raw) : input.raw;
  const rawKey = await fileStorage().put(bytes);
  return recordInboundEvent({ ...input, rawKey, size: bytes.length });
}

/**
 * A webhook call's events, each with its own JSON, and their jobs in one transaction: an event the
 * provider sent before (same key) is skipped, so a redelivered or re-batched call adds only what is new.
 * A poller that fetches the same JSON events (Telegram's getUpdates) stores them here too, as `source` "polling".
 */
export async function storeWebhookEvents(
  accountId: number,
  provider: string,
  events: { key: string; payload: unknown; lane?: string }[],
  meta: Record<string, unknown> = {},
  source: "webhook" | "polling" = "webhook",
) {
  if (!events.length) return { created: 0, duplicates: 0 };
  const handle = getDb();
  const { schema } = handle;
  const receivedAt = Date.now();
  const created = await handle.transaction(async (tx) => {
    let n = 0;
    for (const event of events) {
      const [row] = await tx
        .insert(schema.inboundEvents)
        .values({
          accountId,
          provider,
          eventKey: event.key,
          source,
          payload: JSON.stringify(event.payload),
          size: 0,
          meta: JSON.stringify(meta),
          receivedAt,
        })
        .onConflictDoNothing()
        .returning({ id: schema.inboundEvents.id });
      if (!row) continue;
      n++;
      await enqueue(tx, {
        kind: INBOUND_JOB,
        key: `inbound:${row.id}`,
        payload: { eventId: row.id },
        lane: event.lane ? inboundLane(accountId, event.lane) : null,
      });
    }
    return n;
  });
  metrics.inboundEvents.inc({ source, channel: provider, outcome: "new" }, created);
  if (events.length > created) metrics.inboundEvents.inc({ source, channel: provider, outcome: "duplicate" }, events.length - created);
  if (created) wakeJobs();
  return { created, duplicates: events.length - created };
}

async function rawStream(rawKey: string | null): Promise<Readable> {
  const stream = rawKey ? await fileStorage().get(rawKey) : undefined;
  if (!stream) throw new Error("the event's stored bytes are missing");
  return Readable.fromWeb(stream as import("node:stream/web").ReadableStream);
}

/**
 * Called by an adapter's receive inside the transaction that writes the message: the event is
 * done exactly when its message exists, so a job run again after a crash finds it done.
 */
export async function markEventProcessed(tx: Tx, eventId: number, result: { ticketId: number; messageId: number | null }) {
  const { schema } = getDb();
  const e = schema.inboundEvents;
  const marked = await tx
    .update(e)
    .set({ state: "processed", ...result, processedAt: Date.now(), error: null })
    .where(and(eq(e.id, eventId), eq(e.state, "received")))
    .returning({ id: e.id });
  // another run of the job (its lease ran out while this one was slow) wrote it first: roll this copy back
  if (!marked.length) throw new Error(`event ${eventId} was processed meanwhile`);
}

/** The inbound job: the account's adapter makes the event a message, once. */
export async function processInboundEvent(eventId: number) {
  const { db, schema } = getDb();
  const e = schema.inboundEvents;
  const [event] = await db.select().from(e).where(eq(e.id, eventId));
  // done before a crash stopped the job from finishing: nothing more to do
  if (!event || event.state !== "received") return;
  const account = await loadAccount(event.accountId);
  const adapter = account ? await adapterFor(account.kind) : undefined;
  const outcome = adapter
    ? await adapter.receive(
        {
          ...event,
          meta: JSON.parse(event.meta || "{}"),
          payload: event.payload == null ? null : JSON.parse(event.payload),
          raw: () => rawStream(event.rawKey),
        },
        account,
      )
    : { state: "quarantined" as const, reason: "no enabled channel account takes this event" };
  if (outcome.state === "quarantined")
    await db
      .update(e)
      .set({ state: "quarantined", error: outcome.reason, processedAt: Date.now() })
      .where(and(eq(e.id, eventId), eq(e.state, "received")));
}

/** The inbound job, and its follow-up for a customer's files that came late (pending-media.server.ts). */
export function defineInboundJob() {
  defineMediaJob();
  defineJobKind(INBOUND_JOB, {
    run: (payload) => processInboundEvent((payload as { eventId: number }).eventId),
    async failed(payload, error) {
      const { db, schema } = getDb();
      await db
        .update(schema.inboundEvents)
        .set({ state: "failed", error, processedAt: Date.now() })
        .where(eq(schema.inboundEvents.id, (payload as { eventId: number }).eventId));
    },
  });
}
