// Who a customer is, for the profile card (spec section 2, "Profile modal") and its JSON twin
// GET /api/user/profile/{offset}. A plugin that keeps customer records (the contacts plugin) names
// a loader in its manifest (`customerProfile`): it knows every conversation of one customer across
// channels and merges, however they wrote. The host asks those of the plugins the edition enables,
// in plugin order, and takes the first answer; with none (no such plugin, or its menu rule keeps
// the viewer out) the card falls back to matching the conversations' own email and phone columns
// (profile.server.ts). app/ never imports a plugin.
import { pluginExport } from "~/plugins/modules.server";
import { plugins } from "~/plugins/registry.server";
import type { Reader } from "~/conversation/access.server";
import type { ListRow } from "~/conversation/list-columns.server";
import type { Viewer } from "~/permissions";
import { log } from "~/ops/log.server";
import { isTrial, viewerOf, type RequestContext } from "~/context.server";

/** The card's lists of a customer: all their conversations (activity, 5 a page), or one kind (10 a page). */
export type CustomerList = "activity" | "ticket" | "livechat";
export const CUSTOMER_LISTS: readonly CustomerList[] = ["activity", "ticket", "livechat"];

export interface CustomerProfileInput {
  reader: Reader;
  /** The same person for the plugin's menu rule (hide_contacts). */
  viewer: Viewer;
  /** The customer of this conversation (the caller has checked it may be read), or the one an email or phone names. */
  who: { ticketId: number } | { email: string; phone: string };
  list: CustomerList;
  offset: number;
  limit: number;
}

export interface CustomerProfile {
  /** Where 'View Profile' goes: /contacts/{uid}. */
  uid: string;
  name: string;
  email: string;
  phone: string;
  /** The list's page: only conversations the reader may read, newest first. */
  items: ListRow[];
  more: boolean;
  /** Whether the reader may read any of the customer's conversations (of any kind). */
  readsAny: boolean;
}

type CustomerProfileLoader = (input: CustomerProfileInput) => Promise<CustomerProfile | null>;

/** The first answer of the enabled plugins' loaders; null when none knows the customer. `trial`: only plugins marked `trial`. */
export async function customerProfile(input: CustomerProfileInput, enabled: readonly string[], trial = false): Promise<CustomerProfile | null> {
  const owners = plugins().filter((p) => p.customerProfile && enabled.includes(p.id) && (p.trial || !trial));
  for (const p of owners) {
    try {
      const answer = await (await pluginExport<CustomerProfileLoader>(p.id, p.customerProfile!))(input);
      if (answer) return answer;
    } catch (error) {
      // a plugin's trouble must not take the card down: the host's own match answers instead
      log.error({ err: error, plugin: p.id }, "customer profile failed");
    }
  }
  return null;
}

/** What a request lets the plugins see: its viewer for their menu rules and the edition's plugins (profile.server.ts's ProfileScope). */
export function profileScopeOf(ctx: RequestContext, user = ctx.user) {
  const viewer = user ? viewerOf({ ...ctx, user }) : undefined;
  return viewer ? { viewer, enabled: ctx.edition.enabled, trial: isTrial(ctx) } : undefined;
}
