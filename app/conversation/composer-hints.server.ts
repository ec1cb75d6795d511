// What a conversation's channel says above the reply box: a rule of the provider the agent should
// know before writing (WhatsApp: more than 24 hours since the customer wrote, only approved
// templates go out now, with a link to send one). The channel's adapter gives it (plugin.json
// `channels`), so the conversation's home knows no provider.
import { pluginModule } from "~/plugins/modules.server";
import { channelAdapterFiles } from "~/plugins/registry.server";

export interface ComposerHint {
  /** Translation key of the notice. */
  notice: string;
  /** A page that offers what the channel allows instead (its label a translation key). */
  link?: { href: string; label: string };
}

/** The ticket as a channel adapter's `composerHint` sees it. */
export interface ComposerTicket {
  id: number;
  ticketNumber: number;
  channel: string;
  channelAccountId: number | null;
}

type HintingAdapter = { composerHint?(ticket: ComposerTicket): Promise<ComposerHint | null> };

export async function composerHints(ticket: ComposerTicket): Promise<ComposerHint[]> {
  if (ticket.channelAccountId == null) return [];
  const found = channelAdapterFiles().find((c) => c.kind === ticket.channel);
  if (!found) return [];
  const { adapter } = await pluginModule<{ adapter: HintingAdapter }>(found.pluginId, found.file);
  const hint = await adapter.composerHint?.(ticket);
  return hint ? [hint] : [];
}
