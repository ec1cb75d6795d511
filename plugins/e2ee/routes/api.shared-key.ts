// POST /api/e2ee/shared-key/{ticketId} {check}: for `encryption_method` 'aes', the first
// participant's browser to enter the conversation's passphrase stores the key-check value (a known
// text sealed with the derived key; the passphrase and key never leave the browser). Set once (409 after).
import type { ActionFunctionArgs } from "@remix-run/node";
import { readBody } from "~/api.server";
import { e2eeApiUser, e2eeJson } from "../guard.server";
import { setKeyCheck } from "../e2ee.server";

export async function action({ request, context, params }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await e2eeApiUser(request, context, body);
  return e2eeJson(() => setKeyCheck(user, Number(params.ticketId), body.check as string));
}
