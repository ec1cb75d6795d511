// The TELEGRAM channel: a bot on the Telegram Bot API, through grammY's Api client. In by webhook
// (the layer's /hooks/channels/{account}: Telegram sends the secret token given to setWebhook in
// X-Telegram-Bot-Api-Secret-Token, compared in constant time before anything is stored) or by long
// polling (getUpdates, the layer's watcher), as the account's mode says; out through sendMessage,
// sendPhoto and sendDocument (multipart uploads); an agent's reaction through setMessageReaction. Telegram tells a bot nothing about delivery or
// reading: a reply's state ends at "sent". Spec section 9: from the Pro plan.
import { InputFile } from "grammy";
import type { ChannelAccount, ChannelAdapter } from "@plugins/channels/adapter";
import { messagingReact, messagingReceive, messagingSend, type MessagingParts, type OutgoingPart, type Recipient } from "@plugins/channels/messaging.server";
import { sameSignature } from "@plugins/channels/signatures.server";
import { webhookPath } from "@plugins/channels/webhook.server";
import { PLAN } from "~/permissions";
import { downloadTelegramFile, telegramApi, telegramCall, telegramFailure } from "./api.server";
import { NO_BASE_URL, NO_SECRET_TOKEN, REACTION_REFUSED, fileProblem, sendsAsPhoto, telegramReaction, textChunks } from "./limits";
import { PermanentFailure } from "~/jobs/queue.server";
import { watchTelegram } from "./polling.server";
import { ALLOWED_UPDATES, botIdOf, parseTelegramUpdate, telegramEvents } from "./updates";

export const SECRET_HEADER = "x-telegram-bot-api-secret-token";
/** setWebhook's secret_token: "1-256 characters. Only characters A-Z, a-z, 0-9, _ and - are allowed." */
const SECRET_TOKEN = /^[A-Za-z0-9_-]{1,256}$/;
const BOT_TOKEN = /^\d+:[A-Za-z0-9_-]{20,}$/;

const modeOf = (account: ChannelAccount) => (account.config.mode === "polling" ? "polling" : "webhook");

/** A file name as a multipart header takes it (grammY writes it unquoted and refuses line breaks). */
const uploadName = (name: string) => name.replace(/[\r\n";\\]/g, "_").slice(0, 200) || "file";

async function sendPart(account: ChannelAccount, to: Recipient, part: OutgoingPart) {
  const api = telegramApi(account);
  if ("text" in part) {
    // the channel layer hands a long text over in pieces Telegram takes (textPieces below)
    const sent = await telegramCall(() => api.sendMessage(to.customerId, part.text));
    return `${sent.chat.id}:${sent.message_id}`;
  }
  const file = new InputFile(await part.file.bytes(), uploadName(part.file.name));
  const sent = await telegramCall<{ chat: { id: number }; message_id: number }>(() =>
    sendsAsPhoto(part.file) ? api.sendPhoto(to.customerId, file) : api.sendDocument(to.customerId, file),
  );
  return `${sent.chat.id}:${sent.message_id}`;
}

/**
 * The bot's reaction on a customer's message (setMessageReaction; a bot sets at most one, and an
 * empty list takes it back). The desk refused reactions Telegram does not list; the job's emoji is
 * already Telegram's own.
 */
async function react(account: ChannelAccount, _to: Recipient, providerMessageId: string, emoji: string | null) {
  const [chatId, messageId] = providerMessageId.split(":");
  if (emoji !== null && telegramReaction(emoji) === null) throw new PermanentFailure(REACTION_REFUSED);
  await telegramCall(() =>
    telegramApi(account).setMessageReaction(chatId, Number(messageId), emoji ? [{ type: "emoji", emoji: telegramReaction(emoji) as "👍" }] : []),
  );
}

const parts: MessagingParts = {
  parse: (payload) => parseTelegramUpdate(payload),
  downloadMedia: async (account, media) => {
    const got = await downloadTelegramFile(account, media.id);
    return { bytes: got.bytes, mime: media.mime || got.mime || "application/octet-stream", name: media.name || got.path.split("/").pop() || "file" };
  },
  sendPart,
  textPieces: (text) => textChunks(text),
  checkFile: fileProblem,
  react,
};

/** The Test button: the token names a bot; a webhook account also (re)registers its webhook with Telegram, with its secret token. */
async function testTelegram(account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    const api = telegramApi(account);
    // a wrong or revoked token: 401 Unauthorized
    await telegramCall(() => api.getMe());
    if (modeOf(account) === "polling") return { ok: true };
    if (!account.secrets.secretToken) return { ok: false, error: NO_SECRET_TOKEN };
    const base = (process.env.BASE_URL ?? "").trim().replace(/\/+$/, "");
    if (!base) return { ok: false, error: NO_BASE_URL };
    await telegramCall(() =>
      api.setWebhook(`${base}${webhookPath(account.id)}`, { secret_token: account.secrets.secretToken, allowed_updates: [...ALLOWED_UPDATES] }),
    );
    return { ok: true };
  } catch (error) {
    return { ok: false, error: telegramFailure(error).message };
  }
}

export const adapter: ChannelAdapter = {
  kind: "TELEGRAM",
  minPlan: PLAN.PRO,
  fields: [
    { name: "botToken", label: "plugin_telegram.field.botToken", type: "password", secret: true, required: true, hint: "plugin_telegram.hint.botToken" },
    {
      name: "mode",
      label: "plugin_telegram.field.mode",
      type: "select",
      required: true,
      options: [
        { value: "webhook", label: "plugin_telegram.mode.webhook" },
        { value: "polling", label: "plugin_telegram.mode.polling" },
      ],
      hint: "plugin_telegram.hint.mode",
    },
    { name: "secretToken", label: "plugin_telegram.field.secretToken", type: "password", secret: true, hint: "plugin_telegram.hint.secretToken" },
    { name: "apiBase", label: "plugin_telegram.field.apiBase", type: "url", placeholder: "https://api.telegram.org" },
    { name: "reopenHours", label: "plugin_channels.field.reopenHours", type: "number", placeholder: "24", hint: "plugin_channels.hint.reopenHours" },
  ],
  validate(_config, secrets) {
    const errors: Record<string, string> = {};
    // empty: kept as stored (an edit)
    if (secrets.botToken && !BOT_TOKEN.test(secrets.botToken)) errors.botToken = "plugin_telegram.errors.botToken";
    if (secrets.secretToken && !SECRET_TOKEN.test(secrets.secretToken)) errors.secretToken = "plugin_telegram.errors.secretToken";
    return errors;
  },
  test: testTelegram,
  webhook: {
    // the secret token is the whole proof: Telegram signs nothing else
    verify: (request, account) => !!account.secrets.secretToken && sameSignature(request.headers.get(SECRET_HEADER), account.secrets.secretToken),
    // one update per call (getUpdates is the one that batches)
    events: (request, account) => telegramEvents(JSON.parse(request.rawBody.toString("utf8")), botIdOf(account.secrets.botToken), { single: true }),
  },
  receive: messagingReceive(parts),
  send: messagingSend(parts),
  downloadMedia: parts.downloadMedia,
  react: messagingReact(parts),
  reactions: { emoji: telegramReaction, refused: REACTION_REFUSED },
  watch: (account) => (modeOf(account) === "polling" ? watchTelegram(account) : async () => undefined),
};
