// Outbound calls (ADR 052, addendum): the SIP trunk agents' calls to outside numbers go out through,
// and the call prefix put in front of each number, both workspace settings edited on /call_config
// (call_trunk, call_prefix; the auth check returns call_prefix), and the caller ID the called
// person sees (call_caller_id: one of the workspace's DIDs, as trunks refuse or rewrite a number they
// did not give; empty: the agent's extension). Kamailio keeps no copy: for an agent's INVITE to a
// number that is no registered extension it asks POST /hooks/sip/outbound (outboundHook below)
// where the call goes and with which caller ID, as it asks the DID hook whom a DID rings. The same
// page switches popup_on_call (agents' popup on a new CALL ticket, app/popups.ts).
// A trunk that challenges our INVITEs (digest, 401/407) gets the user name and password saved
// here (call_trunk_user, call_trunk_password sealed at rest; never shown again nor audited): the
// hook hands them to Kamailio with the Request-URI, which answers the challenge once.
import { eq } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { saveWorkspace, saveWorkspaceSettings } from "~/accounts/settings-update.server";
import { getSettings } from "~/models/settings.server";
import { seal, unseal } from "~/secrets.server";
import { didByNumber } from "./dids.server";
import { sameSecret, sipHookSecret } from "./sip.server";

const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** "host" or "host:port": an IPv4 address or a host name, the port 1 to 65535 (UDP; 5060 when left out). */
export function validTrunkAddress(v: string) {
  const [host, port, ...rest] = v.split(":");
  if (rest.length || !host || host.length > 253) return false;
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) return false;
  if (/^[\d.]+$/.test(host)) return /^(\d{1,3}\.){3}\d{1,3}$/.test(host) && host.split(".").every((o) => Number(o) <= 255);
  return host.split(".").every((label) => LABEL.test(label));
}

/** The /call_config trunk form: the trunk's address (empty: no outbound calls) and the call prefix. */
export const trunkForm = z.object({
  trunk: z
    .string()
    .optional()
    .default("")
    .transform((v) => v.trim())
    .refine((v) => v === "" || validTrunkAddress(v), "plugin_calls.errors.trunk"),
  prefix: z
    .string()
    .optional()
    .default("")
    .transform((v) => v.trim())
    .refine((v) => /^\+?\d{0,10}$/.test(v), "plugin_calls.errors.prefix"),
  // checked against the DIDs on saving (saveOutboundTrunk)
  callerId: z
    .string()
    .optional()
    .default("")
    .transform((v) => v.trim()),
  authUser: z
    .string()
    .optional()
    .default("")
    .transform((v) => v.trim())
    .refine((v) => /^[^\s;:@<>"]{0,64}$/.test(v), "plugin_calls.errors.trunkUser"),
  // empty: the saved one is kept (it is never sent back to the page)
  authPassword: z
    .string()
    .optional()
    .default("")
    .refine((v) => v.length <= 128 && !/[\r\n]/.test(v), "plugin_calls.errors.trunkPassword"),
});
export type TrunkInput = z.infer<typeof trunkForm>;

/** The /call_config popup form: the checkbox sends "1" when on, nothing when off. */
export const popupForm = z.object({ popupOnCall: z.preprocess((v) => v === "1" || v === "on", z.boolean()) });

type By = { actor: { id: number; name: string }; ip?: string };

/**
 * The outbound trunk ("" when none), the call prefix, the caller ID ("": the agent's extension) and
 * the digest user name ("": none), as saved; whether a password is saved (never the password).
 */
export async function outboundTrunk() {
  const s = await getSettings();
  return { trunk: s.call_trunk, prefix: s.call_prefix, callerId: s.call_caller_id, authUser: s.call_trunk_user, hasPassword: !!s.call_trunk_password };
}

/** Saves the trunk form; a caller ID that is none of the workspace's DIDs is refused. */
export async function saveOutboundTrunk(input: TrunkInput, by: By): Promise<{ ok: true } | { ok: false; errors: Record<string, string> }> {
  const did = input.callerId ? await didByNumber(input.callerId) : null;
  if (input.callerId && !did) return { ok: false, errors: { callerId: "plugin_calls.errors.callerId" } };
  const callerId = did?.number ?? "";
  // no user: no credentials; a new password replaces the saved one, an empty field keeps it
  const password = !input.authUser ? "" : input.authPassword ? seal(input.authPassword) : (await getSettings()).call_trunk_password;
  await saveWorkspaceSettings(
    { call_trunk: input.trunk, call_prefix: input.prefix, call_caller_id: callerId, call_trunk_user: input.authUser, call_trunk_password: password },
    {
      action: "sip.trunk_updated",
      actor: by.actor,
      target: { type: "setting", id: "call_trunk" },
      detail: { trunk: input.trunk, prefix: input.prefix, callerId, authUser: input.authUser, passwordChanged: !!(input.authUser && input.authPassword) },
      ip: by.ip,
    },
  );
  return { ok: true };
}

export const savePopupOnCall = (on: boolean, by: By) => saveWorkspace(by.actor, "popup_on_call", on ? "1" : "0", by.ip);

/** The Request-URI the trunk gets: the prefix, then the number's digits (E.164 without its +). */
export function trunkUri(number: string, trunk: string, prefix: string) {
  return `sip:${prefix}${number.replace(/\D/g, "")}@${trunk}`;
}

/**
 * Kamailio's outbound hook (an agent's INVITE to a number no agent is registered on): 403 without
 * the shared secret; 404 for what is no outside number (not digits with an optional +, or an
 * agent's extension); 409 when no trunk is set up; else 200 with "<Request-URI towards the trunk>;
 * <caller ID>;<digest user>;<password>", the caller ID when one is chosen and still one of the DIDs,
 * the credentials when saved (percent-encoded); empty fields for what there is not.
 * (A "+" reaches the hook as a space: Kamailio's param escaping leaves it, the form decoding reads it so.)
 */
export async function outboundHook(secret: string, raw: string): Promise<{ status: number; body: string }> {
  if (!sameSecret(secret, sipHookSecret())) return { status: 403, body: "forbidden" };
  const number = raw.replace(/^ /, "+").trim();
  if (!/^\+?\d{2,20}$/.test(number)) return { status: 404, body: "" };
  if (!number.startsWith("+")) {
    const { db, schema } = getDb();
    const [extension] = await db.select({ id: schema.sipAccounts.id }).from(schema.sipAccounts).where(eq(schema.sipAccounts.sipNumber, number));
    if (extension) return { status: 404, body: "" };
  }
  const s = await getSettings();
  if (!s.call_trunk) return { status: 409, body: "no trunk" };
  const did = s.call_caller_id ? await didByNumber(s.call_caller_id) : null;
  const password = s.call_trunk_user ? (unseal(s.call_trunk_password) ?? "") : "";
  const user = password ? s.call_trunk_user : "";
  const fields = [trunkUri(number, s.call_trunk, s.call_prefix), did?.number ?? "", encodeURIComponent(user), encodeURIComponent(password)];
  return { status: 200, body: fields.join(";") };
}
