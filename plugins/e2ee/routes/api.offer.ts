// POST /api/e2ee/offer/{ticketId} {version, sharedBy, opens}: the recipient's browser tried an
// earlier key version another participant shared with it (GET /api/e2ee/conversation's `offered`)
// on that version's messages. opens true: the key becomes theirs; false: the offer is dropped and
// the conversation says whose share did not open them (a forged share never blocks an honest one).
import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { readBody } from "~/api.server";
import { e2eeApiUser, e2eeJson } from "../guard.server";
import { acceptOffer, E2eeRefused, refuseOffer } from "../e2ee.server";

const offerSchema = z.object({ version: z.number().int().positive(), sharedBy: z.number().int().positive(), opens: z.boolean() });

export async function action({ request, context, params }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await e2eeApiUser(request, context, body);
  return e2eeJson(async () => {
    const parsed = offerSchema.safeParse(body);
    if (!parsed.success) throw new E2eeRefused("plugin_e2ee.errors.noOffer");
    const { opens, ...offer } = parsed.data;
    return (opens ? acceptOffer : refuseOffer)(user, Number(params.ticketId), offer);
  });
}
