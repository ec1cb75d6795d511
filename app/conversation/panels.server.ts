// What plugins know about a conversation (its case, its contact, linked products), shown in the
// conversation's properties column. Each plugin names a loader in its manifest
// (`conversationPanel`); the host asks those of the plugins the edition enables, in plugin order,
// and draws what they answer: data, not components, so the panel renders on the server and works
// without JavaScript, and no plugin reaches into the conversation's code.
import { pluginExport } from "~/plugins/modules.server";
import { plugins } from "~/plugins/registry.server";
import type { Reader } from "./access.server";
import type { Viewer } from "~/permissions";
import { log } from "~/ops/log.server";

export interface PanelInput {
  ticket: { id: number; ticketNumber: number; kind: string; channel: string; departmentId: number | null };
  reader: Reader;
  /** The same person for the plugins' menu rules (hide_case, hide_contacts). */
  viewer: Viewer;
  /** The conversation page's query (a panel's own search form is answered through it). */
  searchParams?: URLSearchParams;
  /** The product's public origin (https://host), for links meant for customers. */
  origin?: string;
}

/** A text: user data shown as written, or a translation key with its values (a value "t:key" is translated too). */
export type PanelText = { text: string } | { key: string; values?: Record<string, string> };

/**
 * A link the panel offers. `insert`: text for the reply box: with JavaScript a click puts it into
 * the box at the cursor; without, the link is followed (its href then carries the text as the
 * page's `?draft=`, which the reply box starts with).
 */
export interface PanelAction {
  label: PanelText;
  href: string;
  insert?: string;
  /** A form instead of a link: POST to `href` with these hidden fields (the AI's Dismiss); the plugin's route checks access and redirects back. */
  fields?: Record<string, string>;
}

export interface PanelSection {
  /** Tells apart the sections of a plugin that has more than one (the AI plugin's emotion and context); the plugin's id otherwise. */
  id?: string;
  /** Translation key of the section's heading. */
  title: string;
  /** `channels`: channels (app/conversation/channels.ts) shown after the label, each with its icon and name. */
  items: { label: PanelText; href?: string; actions?: PanelAction[]; channels?: string[] }[];
  /** Links to what the plugin offers for this conversation (attach to a case, link a product). */
  actions: PanelAction[];
  /** A search form (GET to the conversation page itself, so it works without JavaScript): its query parameter, current value and translation keys. */
  search?: { name: string; value: string; label: string; submit: string };
  /** Shown when there are no items (translation key). */
  empty?: string;
  /** A recording to play (a call's): an <audio controls> player and a plain link to the file, so it plays without JavaScript too. */
  audio?: { src: string; type: string; label: PanelText; download: PanelText };
}

/** One section, several (each with its own `id`), or none. */
type PanelLoader = (input: PanelInput) => Promise<PanelSection | PanelSection[] | null>;

/** `trial`: the workspace is on a trial, which has only the plugins marked `trial`. */
export async function conversationPanels(input: PanelInput, enabled: readonly string[], trial = false): Promise<(PanelSection & { plugin: string })[]> {
  const owners = plugins().filter((p) => p.conversationPanel && enabled.includes(p.id) && (p.trial || !trial));
  const sections = await Promise.all(
    owners.map(async (p) => {
      try {
        const answer = await (await pluginExport<PanelLoader>(p.id, p.conversationPanel!))(input);
        return (Array.isArray(answer) ? answer : answer ? [answer] : []).map((section) => ({ ...section, plugin: p.id }));
      } catch (error) {
        // one plugin's trouble must not take the conversation down
        log.error({ err: error, plugin: p.id }, "conversation panel failed");
        return [];
      }
    }),
  );
  return sections.flat();
}
