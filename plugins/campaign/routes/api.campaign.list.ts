// GET /api/campaign/list ?_token, page (from 1), pagination (page size, default 5, at most 100)
// (spec section 7): the campaigns newest first, as /campaign lists them.
// -> {result: "success", data: [{id, name, state, channel, account, starts_at, created_at, total,
//    sent, failed, opted_out, pending}], total, page}
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput } from "~/api.server";
import { listCampaigns } from "../campaign.server";
import { requireCampaignApiUser } from "../guard.server";
import { LIST_PAGE, LIST_PAGE_MAX } from "../limits";

const bad = "Please check the input.";
const input = z.object({
  page: z.coerce.number().int(bad).min(1, bad).max(1_000_000, bad).default(1),
  pagination: z.coerce.number().int(bad).min(1, bad).max(LIST_PAGE_MAX, `At most ${LIST_PAGE_MAX} campaigns a page.`).default(LIST_PAGE),
});

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireCampaignApiUser(request, context);
  const q = apiInput(request, input);
  const found = await listCampaigns({ page: q.page, size: q.pagination });
  return json(
    {
      result: "success",
      data: found.campaigns.map((c) => ({
        id: c.id,
        name: c.name,
        state: c.state,
        channel: c.kind,
        account: c.accountName,
        starts_at: c.startsAt,
        created_at: c.createdAt,
        total: c.counts.total,
        sent: c.counts.sent,
        failed: c.counts.failed,
        opted_out: c.counts.optedOut,
        pending: c.counts.pending,
      })),
      total: found.total,
      page: found.page,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}
