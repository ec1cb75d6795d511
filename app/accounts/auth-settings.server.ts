// The settings block of the auth check response (spec section 3), with its defaults.
import type { ResolvedEdition } from "~/models/editions.server";
import { plugins } from "~/plugins/registry.server";
import { pluginExport } from "~/plugins/modules.server";
import { getSettings } from "~/models/settings.server";
import { PRIORITIES } from "~/conversation/constants";
import { permissionsOf, type UserRow } from "./users.server";
import { latestEventId } from "~/conversation/sync.server";
import { serverVersion } from "~/version.server";

/** Every settings field of section 3, for the signed-in user; `origin` is the page host's origin. */
export async function authSettings(user: UserRow, edition: ResolvedEdition, origin = "") {
  const s = await getSettings();
  return {
    type: user.type,
    name: user.name,
    username: user.username,
    userId: user.id,
    client: Number(s.client_id),
    photo: user.photo ?? "",
    adminName: s.admin_name,
    adminUsername: s.admin_username,
    // where an admin manages the workspace; agents have none
    adminUrl: user.type === "admin" && origin ? `${origin}/settings/users` : "",
    timezone: s.timezone,
    // the softphone (SIP) and its TURN relays: empty here, filled by the calls plugin (pluginSettings)
    turn: [] as { urls: string; username?: string; credential?: string }[],
    sip: [] as { sip_number: string; password: string; active: number }[],
    sipIp: "",
    sipPort: "",
    rank: user.rank,
    permission: permissionsOf(user),
    plan: Number(s.plan),
    settings: [
      { key: "language", value: user.language ?? s.language },
      { key: "popup_on_call", value: s.popup_on_call },
      { key: "session_idle_hours", value: s.session_idle_hours },
    ],
    // priority marks a sender's tickets H, M or L; lists sort H, none, M, L (spec section 9)
    priority: { levels: PRIORITIES.filter((p) => p !== ""), order: ["H", "", "M", "L"] },
    // where the event feed (GET /event/{id}) resumes from
    event_id: await latestEventId(),
    // clients authenticate with the session token; there are no separate API keys
    api_key: "",
    // the external contacts lookup the spec's clients pass along is not configured
    contacts_param: "",
    contacts_param2: "",
    acw_seconds: Number(s.acw_seconds),
    // what outside numbers get in front of their digits towards the SIP trunk (/call_config)
    call_prefix: s.call_prefix,
    version: serverVersion(),
    productDetails: {
      title: edition.title,
      product_functions: plugins()
        .filter((p) => edition.enabled.includes(p.id))
        .map((p) => ({ key: p.id, sublist: p.menu.map((m) => m.id) })),
    },
    account_type: Number(s.account_type),
    last_account_status: s.account_expires_at ? Number(s.account_expires_at) : null,
    ...(await pluginSettings(user, edition)),
  };
}

/** What the edition's plugins add to the settings (manifest `authSettings`: the softphone's SIP fields). */
async function pluginSettings(user: UserRow, edition: ResolvedEdition) {
  const added: Record<string, unknown> = {};
  for (const p of plugins()) {
    if (!p.authSettings || !edition.enabled.includes(p.id)) continue;
    const fields = await pluginExport<(user: { id: number }) => Promise<Record<string, unknown>>>(p.id, p.authSettings);
    Object.assign(added, await fields({ id: user.id }));
  }
  return added;
}
