// The settings block of the auth check response (spec section 3), with its defaults.
import type { ResolvedEdition } from "~/models/editions.server";
import { plugins } from "~/plugins/registry.server";
import { getSettings } from "~/models/settings.server";
import { permissionsOf, type UserRow } from "./users.server";
import { VERSION } from "~/version";

export async function authSettings(user: UserRow, edition: ResolvedEdition) {
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
    adminUrl: "",
    turn: [] as unknown[],
    timezone: s.timezone,
    sip: [] as unknown[],
    sipIp: "",
    sipPort: "",
    rank: Number(s.rank),
    permission: permissionsOf(user),
    plan: Number(s.plan),
    settings: [
      { key: "language", value: user.language ?? s.language },
      { key: "popup_on_call", value: s.popup_on_call },
    ],
    event_id: 0,
    acw_seconds: Number(s.acw_seconds),
    call_prefix: "",
    version: { id: VERSION.id, description: VERSION.description },
    productDetails: {
      title: edition.title,
      product_functions: plugins()
        .filter((p) => edition.enabled.includes(p.id))
        .map((p) => ({ key: p.id, sublist: p.menu.map((m) => m.id) })),
    },
    account_type: Number(s.account_type),
    last_account_status: s.account_expires_at ? Number(s.account_expires_at) : null,
  };
}
