// Long polling, for an account whose mode is "polling" (no public HTTPS address needed): getUpdates
// waits up to 25 s at Telegram for new updates; each batch is stored (same event keys as the
// webhook's, so nothing doubles when an account changes mode) before the offset moves past it in
// channel_cursors, and that offset is what confirms the updates to Telegram on the next call. A
// restart goes on from the stored offset; a crash between storing and moving it fetches the batch
// again and the keys drop the copies.
import type { ChannelAccount } from "@plugins/channels/adapter";
import { readCursor, setAccountState, writeCursor } from "@plugins/channels/accounts.server";
import { storeWebhookEvents } from "@plugins/channels/inbound.server";
import { pollLoop } from "@plugins/channels/poll-loop.server";
import { telegramApi, telegramRefusal, telegramFailure } from "./api.server";
import { ALLOWED_UPDATES, botIdOf, telegramEvents } from "./updates";

export const OFFSET_CURSOR = "telegram-offset";
/** Seconds getUpdates waits at Telegram for an update (TELEGRAM_POLL_SECONDS; Telegram's own cap is 50). */
const pollSeconds = () => Math.min(Number(process.env.TELEGRAM_POLL_SECONDS) || 25, 50);

/** One getUpdates call: stores what came, then moves the offset past it. */
export async function pollTelegram(account: ChannelAccount, options: { timeoutSeconds?: number; signal?: AbortSignal } = {}) {
  const api = telegramApi(account);
  // grammY types its signal with the abort-controller package's AbortSignal; Node's is the same at runtime
  const signal = options.signal as Parameters<typeof api.getUpdates>[1];
  const offset = Number(await readCursor(account.id, OFFSET_CURSOR)) || undefined;
  const ask = () => api.getUpdates({ offset, timeout: options.timeoutSeconds ?? 0, limit: 100, allowed_updates: [...ALLOWED_UPDATES] }, signal);
  let updates;
  try {
    updates = await ask();
  } catch (error) {
    // 409 "can't use getUpdates method while webhook is active": the admin chose polling, so the webhook goes
    const refusal = telegramRefusal(error);
    if (refusal?.code !== 409 || !/webhook/i.test(refusal.description)) throw telegramFailure(error);
    await api.deleteWebhook({ drop_pending_updates: false }, signal).catch((e) => Promise.reject(telegramFailure(e)));
    updates = await ask().catch((e) => Promise.reject(telegramFailure(e)));
  }
  if (!updates.length) return { seen: 0, stored: 0 };
  const events = telegramEvents(updates, botIdOf(account.secrets.botToken));
  const { created } = await storeWebhookEvents(account.id, account.kind, events, {}, "polling");
  const next = Math.max(...updates.map((u) => u.update_id)) + 1;
  await writeCursor(account.id, OFFSET_CURSOR, String(next));
  return { seen: updates.length, stored: created };
}

/** Polls until stopped (the layer's watcher, one node per account); stopping ends a long poll in flight. */
export function watchTelegram(account: ChannelAccount): () => Promise<void> {
  return pollLoop({
    accountId: account.id,
    // the wait is at Telegram (the long poll); a short pause keeps a server that answers at once from being hammered
    intervalMs: 200,
    pass: async (_stopped, signal) => {
      await pollTelegram(account, { timeoutSeconds: pollSeconds(), signal });
    },
    setState: (outcome) => setAccountState(account.id, outcome),
    describe: (error) => (error as Error)?.message ?? String(error),
  });
}
