// GET /api/ticket/load/{token}/{status}/{type}/{offset} (also without /api) -> {data, count, status}
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { listParamsFromApi, listTickets, parseListQuery } from "../ticket-list.server";
import { getSetting } from "~/models/settings.server";
import { requireApiUser } from "~/api.server";
import type { Kind } from "~/conversation/channels";
import { apiListRow } from "../api-rows";

const KIND_OF_TYPE: Record<string, Kind> = { ticket: "ticket", chat: "chat", call: "call", call2: "call", livechat: "livechat" };

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireApiUser(request, {}, params.token);
  const kind = KIND_OF_TYPE[params.type ?? ""];
  if (!kind) return json({ result: "failed", description: "Unknown type." }, { status: 400 });
  const query = parseListQuery(listParamsFromApi(new URL(request.url), params.status ?? "0", Number(params.offset) || 0));
  const list = await listTickets(user, kind, query, { timeZone: await getSetting("timezone") });
  return json({
    status: query.status,
    count: list.total,
    // counts stop at a cap on large sets (see countCap); true means "at least count"
    countCapped: list.capped,
    data: list.items.map(apiListRow),
  });
}
