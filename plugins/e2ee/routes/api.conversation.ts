// GET /api/e2ee/conversation/{ticketId}: what a participant's browser needs to read and send
// there (encryption, key version, participants' public keys and earlier fingerprints, the key
// versions wrapped for the caller).
// POST /api/e2ee/conversation/{ticketId} {version, wrapped: [{userId, wrappedKey, fingerprint}], visitor?}:
// the next key version, wrapped for every participant with a key (and a live chat's visitor) (409 when someone was faster or
// the participants changed: fetch again).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { z } from "zod";
import { readBody } from "~/api.server";
import { e2eeApiUser, e2eeJson } from "../guard.server";
import { addKeyVersion, conversationKeys, E2eeRefused } from "../e2ee.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await e2eeApiUser(request, context);
  return e2eeJson(() => conversationKeys(user, Number(params.ticketId)));
}

const versionSchema = z.object({
  version: z.number().int().positive(),
  wrapped: z.array(z.object({ userId: z.number().int().positive(), wrappedKey: z.string().max(2000), fingerprint: z.string().max(128) })).max(500),
  visitor: z.object({ wrappedKey: z.string().max(2000), fingerprint: z.string().max(128) }).nullish(),
});

export async function action({ request, context, params }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await e2eeApiUser(request, context, body);
  return e2eeJson(async () => {
    const parsed = versionSchema.safeParse(body);
    if (!parsed.success) throw new E2eeRefused("plugin_e2ee.errors.participantsChanged");
    return addKeyVersion(user, Number(params.ticketId), parsed.data);
  });
}
