// Outbound calls (ADR 052, addendum): the SIP trunk agents' calls to outside numbers go out through,
// and the call prefix put in front of each number, both workspace settings edited on /call_config
// (call_trunk, call_prefix; the auth check returns call_prefix), and the caller ID the called
// person sees (call_caller_id: one of the workspace's DIDs, as trunks refuse or rewrite a number they
// did not give; empty: the agent's extension). Kamailio keeps no copy: for an agent's INVITE to a
// number that is no registered extension it asks POST /hooks/sip/outbound (outboundHook below)
// where the call goes and with which caller ID, as it asks the DID hook whom a DID rings. The same
// page switches popup_on_call (agents' popup on a new CALL ticket, app/popups.ts).
import { eq } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@db/client";
import { saveWorkspace, saveWorkspaceSettings } from "~/accounts/settings-update.server";
import { getSettings } from "~/models/settings.server";
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
});
export type TrunkInput = z.infer<typeof trunkForm>;

/** The /call_config popup form: the checkbox sends "1" when on, nothing when off. */
export const popupForm = z.object({ popupOnCall: z.preprocess((v) => v === "1" || v === "on", z.boolean()) });

type By = { actor: { id: number; name: string }; ip?: string };

/** The outbound trunk ("" when none), the call prefix and the caller ID ("": the agent's extension), as saved. */
export async function outboundTrunk() {
  const s = await getSettings();
  return { trunk: s.call_trunk, prefix: s.call_prefix, callerId: s.call_caller_id };
}

/** Saves the trunk form; a caller ID that is none of the workspace's DIDs is refused. */
export async function saveOutboundTrunk(input: TrunkInput, by: By): Promise<{ ok: true } | { ok: false; errors: Record<string, string> }> {
  const did = input.callerId ? await didByNumber(input.callerId) : null;
  if (input.callerId && !did) return { ok: false, errors: { callerId: "plugin_calls.errors.callerId" } };
  const callerId = did?.number ?? "";
  await saveWorkspaceSettings(
    { call_trunk: input.trunk, call_prefix: input.prefix, call_caller_id: callerId },
    {
      action: "sip.trunk_updated",
      actor: by.actor,
      target: { type: "setting", id: "call_trunk" },
      detail: { trunk: input.trunk, prefix: input.prefix, callerId },
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
 * agent's extension); 409 when no trunk is set up; else 200 with the Request-URI towards the trunk,
 * then ";" and the caller ID when one is chosen and still one of the DIDs ("sip:...@trunk;+603...").
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
  const { trunk, prefix, callerId } = await outboundTrunk();
  if (!trunk) return { status: 409, body: "no trunk" };
  const did = callerId ? await didByNumber(callerId) : null;
  return { status: 200, body: `${trunkUri(number, trunk, prefix)}${did ? `;${did.number}` : ""}` };
}
