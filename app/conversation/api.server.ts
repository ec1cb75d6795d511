// Shared pieces of the ticket JSON twins: token auth, error mapping, list-query mapping.
import { json } from "@remix-run/node";
import { AccessDenied } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";
import { apiAuth } from "~/api.server";
import { findSession } from "~/models/sessions.server";
import { i18nFor } from "~/i18n";
import { resourcesFor } from "~/i18n.server";

/** The English text of a message key, for JSON answers (the same texts the pages show). */
export function englishText(key: string, values?: Record<string, string>) {
  return i18nFor("en", resourcesFor("en")).t(key, values);
}

/** The user behind a _token (query, body or Bearer header), or behind the {token} of a path. */
export async function requireApiUser(request: Request, body: Record<string, unknown> = {}, pathToken?: string) {
  const auth = pathToken ? await findSession(pathToken) : await apiAuth(request, body);
  if (!auth) throw json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });
  return auth.user;
}

/** Runs a JSON twin, answering 403 'Access denied' / 404 as the pages do. */
export async function jsonErrors<T>(fn: () => Promise<T>): Promise<T | Response> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof AccessDenied) return json({ result: "failed", description: "Access denied", message: error.message }, { status: 403 });
    if (error instanceof NotFound) return json({ result: "failed", description: "Ticket not found." }, { status: 404 });
    throw error;
  }
}

/** The spec's list parameters (section 7) mapped onto the list panel's query names. */
export function listParamsFromApi(url: URL, status: string, offset: number) {
  const q = url.searchParams;
  const out = new URLSearchParams({ status, page: String(Math.floor(Math.max(0, offset) / 30) + 1) });
  const map: [string, string][] = [
    ["channelFilter", "channel"], ["labelFilter", "label"], ["depFilter", "department"], ["priorityFilter", "priority"],
    ["campaignId", "campaign"], ["assignee", "assignee"], ["agent", "assignee"], ["emotion", "emotion"],
  ];
  for (const [from, to] of map) if (q.get(from)) out.set(to, q.get(from)!);
  const ranges: [string, string, string][] = [["startDate", "endDate", "updated"], ["receivedStartDate", "receivedEndDate", "created"], ["appStartDate", "appEndDateFilter", "appointment"]];
  for (const [start, end, field] of ranges) {
    if (q.get(start) || q.get(end)) {
      out.set("dateField", field);
      out.set("preset", "custom");
      if (q.get(start)) out.set("from", q.get(start)!.slice(0, 10));
      if (q.get(end)) out.set("to", q.get(end)!.slice(0, 10));
    }
  }
  if (q.get("sort") === "priority") out.set("sort", "priority");
  return out;
}
