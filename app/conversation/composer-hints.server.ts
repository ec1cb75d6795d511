// What a conversation's channel says above the reply box: a rule of the provider the agent should
// know before writing (WhatsApp: more than 24 hours since the customer wrote, only approved
// templates go out now, with a link to send one). The channel's adapter gives it (plugin.json
// `channels`), so the conversation's home knows no provider.
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import { pluginModule } from "~/plugins/modules.server";
import { channelAdapterFiles } from "~/plugins/registry.server";
import { REACTIONS } from "./constants";

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

/** What the desk asks of a conversation's channel adapter (plugins/channels/adapter.ts). */
type HintingAdapter = {
  composerHint?(ticket: ComposerTicket): Promise<ComposerHint | null>;
  react?: unknown;
  reactions?: { emoji(reaction: string): string | null; refused: string };
};

/** The adapter of a conversation on a channel account, if its plugin is there. */
async function adapterOf(ticket: Pick<ComposerTicket, "channel" | "channelAccountId">) {
  if (ticket.channelAccountId == null) return null;
  const found = channelAdapterFiles().find((c) => c.kind === ticket.channel);
  if (!found) return null;
  return (await pluginModule<{ adapter: HintingAdapter }>(found.pluginId, found.file)).adapter;
}

/**
 * The adapter of the conversation's account, whatever the conversation's own channel: an Instagram
 * account's comment threads (IG_POST) are answered by its IG_PM adapter, which says what they take.
 */
async function accountAdapterOf(ticket: Pick<ComposerTicket, "channel" | "channelAccountId">) {
  const own = await adapterOf(ticket);
  if (own || ticket.channelAccountId == null) return own;
  const { db, schema } = getDb();
  const [account] = await db
    .select({ kind: schema.channelAccounts.kind })
    .from(schema.channelAccounts)
    .where(eq(schema.channelAccounts.id, ticket.channelAccountId));
  return account ? adapterOf({ channel: account.kind, channelAccountId: ticket.channelAccountId }) : null;
}

export async function composerHints(ticket: ComposerTicket): Promise<ComposerHint[]> {
  const hint = await (await accountAdapterOf(ticket))?.composerHint?.(ticket);
  return hint ? [hint] : [];
}

/**
 * What becomes of an agent's reaction to a customer's message on the conversation's channel: null
 * when the conversation is not on a channel account; else whether reactions reach the customer at
 * all (LINE has no reaction API: the desk says so), and which of the desk's reactions the provider
 * refuses (Telegram's fixed list) with the channel's reason (a translation key).
 */
export async function channelReactions(ticket: Pick<ComposerTicket, "channel" | "channelAccountId">) {
  if (ticket.channelAccountId == null) return null;
  const adapter = await adapterOf(ticket);
  if (!adapter?.react) return { sent: false, refused: [] as string[], reason: null };
  const rules = adapter.reactions;
  return { sent: true, refused: rules ? (REACTIONS.filter((r) => rules.emoji(r) === null) as string[]) : [], reason: rules?.refused ?? null };
}
