// POST /api/e2ee/backup/passphrase {blob, salt, iv, iterations, fingerprint, replaces}: the caller's
// browser opened their backup with the current passphrase and sealed the same key with a new one;
// it replaces the backup whose salt is `replaces` (409 when that is no longer the stored one), audited.
import type { ActionFunctionArgs } from "@remix-run/node";
import { readBody } from "~/api.server";
import { e2eeApiUser, e2eeJson } from "../guard.server";
import { changeBackupPassphrase } from "../e2ee.server";
import type { Backup } from "../crypto";

export async function action({ request, context }: ActionFunctionArgs) {
  const body = await readBody(request);
  const user = await e2eeApiUser(request, context, body);
  const ip = String(context.clientIp ?? "");
  return e2eeJson(() => changeBackupPassphrase(user, body as unknown as Backup & { replaces?: unknown }, ip));
}
