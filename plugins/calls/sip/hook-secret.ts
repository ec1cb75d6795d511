// The secret Kamailio presents to the product's auth hook: SIP_HOOK_SECRET, or one derived from
// SESSION_SECRET (so `npm run sip:up` and the server agree without more settings). No imports of
// the app: the launcher and the e2e tests use it too.
import { createHash } from "node:crypto";

export function sipHookSecret(env: Record<string, string | undefined> = process.env) {
  return (
    env.SIP_HOOK_SECRET ||
    createHash("sha256")
      .update(`sip-hook:${env.SESSION_SECRET || "dev-only-secret"}`)
      .digest("hex")
  );
}
