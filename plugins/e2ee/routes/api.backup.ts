// GET /api/e2ee/backup: the caller's passphrase-sealed private key ({blob, salt, iv, iterations, fingerprint} or null).
// POST /api/e2ee/backup {blob, salt, iv, iterations, fingerprint}: stores it (the server cannot open it).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { readBody } from "~/api.server";
import { e2eeApiUser, e2eeJson } from "../guard.server";
import { getBackup, putBackup } from "../e2ee.server";
import type { Backup } from "../crypto";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await e2eeApiUser(request, context);
  return e2eeJson(() => getBackup(user.id));
}

export async function action({ request, context }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await e2eeApiUser(request, context, body);
  return e2eeJson(async () => {
    await putBackup(user.id, body as unknown as Backup);
    return { stored: true };
  });
}
