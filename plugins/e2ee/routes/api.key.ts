// GET /api/e2ee/key: the caller's current public key ({publicKey, fingerprint} or null).
// POST /api/e2ee/key {publicKey: SPKI base64 (RSA-OAEP)}: publishes this browser's key ({fingerprint, changed}).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { readBody } from "~/api.server";
import { e2eeApiUser, e2eeJson } from "../guard.server";
import { currentKey, publishKey } from "../e2ee.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await e2eeApiUser(request, context);
  return e2eeJson(async () => {
    const key = await currentKey(user.id);
    return key ? { publicKey: key.publicKey, fingerprint: key.fingerprint } : null;
  });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await e2eeApiUser(request, context, body);
  return e2eeJson(() => publishKey(user, body.publicKey as string));
}
