// GET /ticket/load2/{department|label}/{status}/ticket/{offset}/{extra} (also under /api) ?_token
// The list panel's Department and Label tabs as JSON, 10 tickets a group (spec sections 7 and 9):
//   extra = a department's or label's id: that group's 10 from offset (its Show More)
//     -> {result, status, group: {id, name, color}, data, more, offset}
//   extra = 0: every group's 10 from offset
//     -> {result, status, groups: [{id, name, color, data, more}], offset}
// The list's filters (channelFilter, labelFilter, depFilter, priorityFilter, campaignId, assignee,
// dates, sort) apply as on /api/ticket/load. Only tickets the caller may read.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput } from "~/api.server";
import { readerSession } from "~/accounts/api-auth.server";
import { getSetting } from "~/models/settings.server";
import { groupPages } from "../list-panel.server";
import { listParamsFromApi, parseListQuery } from "../ticket-list.server";
import { apiListRow } from "../api-rows";

const whole = (what: string) => z.coerce.number({ message: `The ${what} must be a whole number.` }).int(`The ${what} must be a whole number.`);
const input = z.object({
  by: z.enum(["department", "label"], { message: "Group by department or label." }),
  status: whole("status").min(0, "The status must be 0 to 4.").max(4, "The status must be 0 to 4."),
  type: z.literal("ticket", { message: "Only tickets are grouped." }),
  offset: whole("offset").min(0, "The offset must be a whole number.").max(1_000_000, "The offset is too large."),
  extra: whole("group id").min(0, "The group id must be a whole number."),
});

export const action = () => json({ result: "failed", description: "Method not allowed" }, { status: 405 });

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user } = await readerSession(request);
  const p = apiInput(request, input, { by: params.by, status: params.status, type: params.type, offset: params.offset, extra: params.extra });
  const q = parseListQuery(listParamsFromApi(new URL(request.url), String(p.status), 0));
  const groups = await groupPages(user, p.by, q, { groupId: p.extra || undefined, offset: p.offset, timeZone: await getSetting("timezone") });
  if (!groups) return json({ result: "failed", description: p.by === "department" ? "Department not found." : "Label not found." }, { status: 404 });
  const shaped = groups.map((g) => ({ id: g.id, name: g.name, color: g.color ?? null, data: g.items.map(apiListRow), more: g.more }));
  const headers = { "Cache-Control": "private, no-store" };
  if (p.extra) {
    const [{ data, more, ...group }] = shaped;
    return json({ result: "success", status: q.status, group, data, more, offset: p.offset }, { headers });
  }
  return json({ result: "success", status: q.status, groups: shaped, offset: p.offset }, { headers });
}
