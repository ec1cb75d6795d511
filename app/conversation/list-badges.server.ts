// Short marks plugins put on the rows of the conversation lists (the SLA plugin's time left).
// Each plugin names a loader in its manifest (`listBadge`); the list asks those of the plugins the
// edition enables once per page, for all its rows at once, and draws what they answer: data (a
// text and a state), so the mark renders on the server and works without JavaScript.
import { pluginExport } from "~/plugins/modules.server";
import { plugins } from "~/plugins/registry.server";
import { log } from "~/ops/log.server";
import type { PanelText } from "./panels.server";
import type { BadgeCountdown } from "./countdown";

export interface BadgeInput {
  ticketIds: number[];
  now: number;
}

/** A row's mark: its text, and a state the list colours (ok, warning, breached, or neutral). */
export interface ListBadge {
  text: PanelText;
  state: "ok" | "warning" | "breached" | "neutral";
  /** Longer text for assistive technology and the tooltip, when the mark is terse. */
  label?: PanelText;
  /** A time that runs: the list redraws the text each minute with JavaScript (app/conversation/countdown.ts). */
  countdown?: BadgeCountdown;
}

type BadgeLoader = (input: BadgeInput) => Promise<Record<number, ListBadge>>;

/** Every enabled plugin's badges, per ticket id, in plugin order. */
export async function listBadges(
  ticketIds: number[],
  enabled: readonly string[],
  now = Date.now(),
): Promise<Record<number, (ListBadge & { plugin: string })[]>> {
  const out: Record<number, (ListBadge & { plugin: string })[]> = {};
  if (!ticketIds.length) return out;
  const owners = plugins().filter((p) => p.listBadge && enabled.includes(p.id));
  const answers = await Promise.all(
    owners.map(async (p) => {
      try {
        return { plugin: p.id, badges: await (await pluginExport<BadgeLoader>(p.id, p.listBadge!))({ ticketIds, now }) };
      } catch (error) {
        // one plugin's trouble must not take the list down
        log.error({ err: error, plugin: p.id }, "list badge failed");
        return { plugin: p.id, badges: {} as Record<number, ListBadge> };
      }
    }),
  );
  for (const { plugin, badges } of answers) for (const [id, badge] of Object.entries(badges)) (out[Number(id)] ??= []).push({ ...badge, plugin });
  return out;
}
