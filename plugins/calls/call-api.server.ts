// The calls' JSON twins (spec section 7): /api/ticket/load/{token}/{status}/call|call2/{offset}
// with the call filters, /api/ticket/data3/{id}/{count} (a CALL ticket's messages and its call),
// /api/extension/get (the extensions agents dial) and /api/proxy/imc_user (the DIDs). Filters
// are named as the ticket list's twin names them (startDate, labelFilter, agent, ...); a value
// that is not one the filter takes is refused with 400 {result: "failed", description}.
import { json } from "@remix-run/node";
import { and, asc, eq, isNull } from "drizzle-orm";
import { getDb } from "@db/client";
import type { Reader } from "~/conversation/access.server";
import { conversationById, loadMessages, NotFound } from "~/conversation/model.server";
import { apiMessage, jsonErrors } from "~/conversation/api.server";
import { listDids } from "./dids.server";
import { CALL_PAGE_SIZE, callOfTicket, knownDids, listCalls, parseCallFilter, type CallFilterField } from "./calls.server";

export const BAD_INPUT = "Please check the input.";

/** The twin's query names for each call filter (the first one given wins). */
const API_NAMES: Record<Exclude<CallFilterField, "page">, string[]> = {
  direction: ["direction"],
  number: ["number"],
  from: ["startDate", "receivedStartDate"],
  to: ["endDate", "receivedEndDate"],
  emotion: ["emotion"],
  energy: ["energy"],
  pace: ["pace"],
  personality: ["personality"],
  assignee: ["assignee", "agent"],
  did: ["did"],
  label: ["labelFilter", "label"],
};

/** Spec section 5: dates are sent as 'YYYY-MM-DD 00:00:00'; the day is what filters. */
const dayOf = (v: string) => (/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/.test(v) ? v.slice(0, 10) : v);

type ListRow = Awaited<ReturnType<typeof listCalls>>["calls"][number];

/** A call as the list twins answer it: the ticket list's item (spec section 3, Ticket) with the call's fields. */
export function apiCallRow(c: ListRow) {
  return {
    id: c.ticketId,
    ticket_number: c.ticketNumber,
    title: c.title,
    channel: "CALL",
    closed: c.status,
    label: JSON.stringify(c.labels.map((l) => l.id)),
    assignee: c.assignees.join(","),
    updated_at: c.updatedAt,
    ts: Math.floor(c.startedAt / 1000),
    call_direction: c.direction,
    did: c.did,
    // the outside party's number (spec `phone`); an internal call has none
    phone: c.direction === "inbound" ? c.from : c.direction === "outbound" ? c.to : "",
    caller: c.from,
    called: c.to,
    agent: c.agentUsername,
    state: c.state,
    ring_seconds: c.ring,
    talk_seconds: c.talk,
    hold_seconds: c.hold,
    acw_seconds: c.acw,
    hangup_cause: c.cause,
    hangup_by: c.hangupBy,
    emotion: c.emotion,
    energy: c.energy,
    pace: c.pace,
    personality: c.personality,
  };
}

/** GET /api/ticket/load/{token}/{status}/call|call2/{offset}: the calls the user may read, 30 from offset. */
export async function loadCallsApi(user: Reader, url: URL, params: { status?: string; offset?: string }, timeZone: string) {
  const status = /^[0-4]$/.test(params.status ?? "") ? Number(params.status) : NaN;
  const offset = /^\d{1,9}$/.test(params.offset ?? "") ? Number(params.offset) : NaN;
  if (Number.isNaN(status) || Number.isNaN(offset))
    return json({ result: "failed", description: BAD_INPUT, field: Number.isNaN(status) ? "status" : "offset" }, { status: 400 });
  const raw: Record<string, string> = {};
  for (const [field, names] of Object.entries(API_NAMES)) {
    const given = names.map((n) => url.searchParams.get(n) ?? "").find((v) => v.trim() !== "");
    if (given) raw[field] = field === "from" || field === "to" ? dayOf(given.trim()) : given;
  }
  raw.page = String(Math.floor(offset / CALL_PAGE_SIZE) + 1);
  const { filter, invalid } = parseCallFilter(raw);
  if (invalid.length) return json({ result: "failed", description: BAD_INPUT, field: invalid[0] }, { status: 400 });
  const list = await listCalls(user, filter, timeZone, { status });
  return json({ result: "success", status, count: list.total, data: list.calls.map(apiCallRow) }, { headers: { "Cache-Control": "private, no-store" } });
}

/** GET /api/ticket/data3/{id}/{count} ?messageId: a CALL ticket's messages (30 before messageId, or the newest) and its call. */
export async function callDataApi(user: Reader, id: string | undefined, before: number | undefined) {
  if (!/^\d{1,15}$/.test(id ?? "")) return json({ result: "failed", description: BAD_INPUT }, { status: 400 });
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(id));
    // data3 is the calls' twin: another kind of conversation is not found here (its twin is /ticket/data)
    if (ticket.kind !== "call") throw new NotFound();
    const [page, call] = await Promise.all([loadMessages(ticket, { before }), callOfTicket(ticket.id)]);
    return json(
      {
        result: "success",
        more: page.hasOlder,
        data: page.messages.map(apiMessage),
        call: call && {
          call_direction: call.direction,
          did: call.did,
          caller: call.fromNumber,
          called: call.toNumber,
          agent: call.agentName,
          state: call.state,
          started_at: Math.floor(call.startedAt / 1000),
          answered_at: call.answeredAt == null ? null : Math.floor(call.answeredAt / 1000),
          ended_at: call.endedAt == null ? null : Math.floor(call.endedAt / 1000),
          ring_seconds: call.ring,
          talk_seconds: call.talk,
          hold_seconds: call.hold,
          acw_seconds: call.acw,
          hangup_cause: call.hangupCause,
          hangup_by: call.hangupBy,
        },
      },
      { headers: { "Cache-Control": "private, no-store" } },
    );
  });
}

/** The extensions of active SIP accounts of users who are not disabled (whom an agent can dial). */
export async function extensions() {
  const { db, schema } = getDb();
  return db
    .select({ extension: schema.sipAccounts.sipNumber, username: schema.users.username, name: schema.users.name })
    .from(schema.sipAccounts)
    .innerJoin(schema.users, eq(schema.users.id, schema.sipAccounts.userId))
    .where(and(eq(schema.sipAccounts.active, true), isNull(schema.users.disabledAt)))
    .orderBy(asc(schema.sipAccounts.sipNumber));
}

/** GET /api/extension/get -> {result, data: [{extension_id, sip_number, username, name}]}. */
export async function extensionsApi() {
  const rows = await extensions();
  return json(
    { result: "success", data: rows.map((r) => ({ extension_id: r.extension, sip_number: r.extension, username: r.username, name: r.name })) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

/**
 * GET /api/proxy/imc_user -> [{DIDnumber, accountDescription}] (spec section 7): the DIDs set up on
 * /call_config (described by whom they ring), then numbers calls came in on that are none of them.
 */
export async function imcUsersApi() {
  const [configured, known] = await Promise.all([listDids(), knownDids()]);
  const numbers = new Set(configured.map((d) => d.number));
  return json(
    [
      ...configured.map((d) => ({ DIDnumber: d.number, accountDescription: [d.departmentName, ...d.agents].filter(Boolean).join(", ") })),
      ...known.filter((d) => !numbers.has(d.did)).map((d) => ({ DIDnumber: d.did, accountDescription: "" })),
    ],
    { headers: { "Cache-Control": "private, no-store" } },
  );
}
