// POST /api/e2ee/share/{ticketId} {userId, keys: [{version, wrappedKey, fingerprint}]}: a participant
// shares earlier key versions with another participant (someone added later), each wrapped in the
// sharer's browser for the other's current public key (409 when that key changed: fetch again).
import type { ActionFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { readBody } from "~/api.server";
import { e2eeApiUser, e2eeJson } from "../guard.server";
import { E2eeRefused, shareHistory } from "../e2ee.server";

const shareSchema = z.object({
  userId: z.number().int().positive(),
  keys: z
    .array(z.object({ version: z.number().int().positive(), wrappedKey: z.string().max(2000), fingerprint: z.string().max(128) }))
    .min(1)
    .max(1000),
});

export async function action({ request, context, params }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await e2eeApiUser(request, context, body);
  return e2eeJson(async () => {
    const parsed = shareSchema.safeParse(body);
    if (!parsed.success) throw new E2eeRefused("plugin_e2ee.errors.participantsChanged");
    return shareHistory(user, Number(params.ticketId), parsed.data);
  });
}
