// The LINE_DM channel: LINE Messaging API one-to-one chats. In through the channel layer's webhook
// (x-line-signature over the raw body), one stored event per webhookEventId; the customer's name
// from their profile. Out with the reply token while it is fresh (once), else by push with an
// X-Line-Retry-Key per message, so a push tried again after a timeout or a 5xx is not sent twice
// (LINE answers 409 with the messages it sent). LINE gives bots no delivery or read receipts: an
// agent's message ends at "sent". Pictures, videos and audio go out as signed, expiring public
// addresses LINE fetches (limits.ts); documents cannot go out. LINE has no reaction API.
import { eq } from "drizzle-orm";
import { getDb } from "@db/client";
import type { ChannelAdapter, ChannelAccount } from "@plugins/channels/adapter";
import { messagingReceive, messagingSend, type MessagingParts, type OutgoingPart, type Recipient } from "@plugins/channels/messaging.server";
import { PermanentFailure } from "~/jobs/queue.server";
import { log } from "~/ops/log.server";
import { PLAN } from "~/permissions";
import type { messagingApi } from "@line/bot-sdk";
import { client, downloadContent, isLineHttpError, lineCall, profileName, retryKey, verifyLineSignature, type LineHttpError } from "./api.server";
import { lineEvents, parseLineEvent, replyTokenOf } from "./events";
import { AUDIO_LENGTH, PREVIEW_MAX, TEXT_TOO_LONG, audioLengthMs, fileProblem, lineFileKind, textMessages } from "./limits";
import { publicBaseUrl, publicFileUrl } from "@plugins/channels/public-files.server";
import type { StoredFile } from "~/conversation/model.server";
import { claimReplyToken, rememberReplyToken } from "./reply-token.server";

type Sent = { sentMessages?: messagingApi.SentMessage[] };
const firstId = (answer: Sent | null | undefined) => answer?.sentMessages?.[0]?.id;

/** Replies with the token; null when LINE no longer takes it ("Invalid reply token": too late, or used), so the message is pushed instead. */
async function reply(account: ChannelAccount, replyToken: string, messages: messagingApi.Message[]) {
  const answer = await lineCall(async () => {
    try {
      return await client(account).replyMessage({ replyToken, messages });
    } catch (error) {
      if (isLineHttpError(error) && error.status === 400 && /reply token/i.test(error.body)) return null;
      throw error;
    }
  });
  if (answer === null) {
    log.info({ accountId: account.id }, "line: reply token refused, pushing instead");
    return null;
  }
  const id = firstId(answer);
  if (!id) throw new Error("LINE answered the reply without a message id");
  return id;
}

/** A push whose retry key LINE accepted before (the earlier attempt's answer was lost): what it sent then. */
function acceptedBefore(error: LineHttpError, key: string): Sent {
  let body: Sent = {};
  try {
    body = JSON.parse(error.body) as Sent;
  } catch {
    body = {};
  }
  return firstId(body) ? body : { sentMessages: [{ id: `accepted:${error.headers.get("x-line-accepted-request-id") || key}` }] };
}

async function push(account: ChannelAccount, to: string, messages: messagingApi.Message[], key: string) {
  const answer = await lineCall(async () => {
    try {
      return await client(account).pushMessage({ to, messages }, key);
    } catch (error) {
      if (isLineHttpError(error) && error.status === 409) return acceptedBefore(error, key);
      throw error;
    }
  });
  const id = firstId(answer);
  if (!id) throw new Error("LINE answered the push without a message id");
  return id;
}

/** A video's preview when none is made: a still with a play mark, served with the app's public files. */
const VIDEO_PREVIEW = "/channels/video-preview.png";

/** An agent's file as the LINE message that makes LINE fetch it from its signed public address. */
async function fileMessage(messageId: number, file: StoredFile & { bytes: () => Promise<Buffer> }): Promise<messagingApi.Message> {
  const problem = fileProblem(file);
  if (problem) throw new PermanentFailure(problem);
  const url = publicFileUrl(messageId, file.name);
  const kind = lineFileKind(file);
  if (kind === "image")
    return { type: "image", originalContentUrl: url, previewImageUrl: file.size <= PREVIEW_MAX ? url : `${publicBaseUrl()}${VIDEO_PREVIEW}` };
  if (kind === "video") return { type: "video", originalContentUrl: url, previewImageUrl: `${publicBaseUrl()}${VIDEO_PREVIEW}` };
  const duration = audioLengthMs(await file.bytes());
  if (!duration) throw new PermanentFailure(`${AUDIO_LENGTH}: ${file.name}`);
  return { type: "audio", originalContentUrl: url, duration };
}

async function sendPart(account: ChannelAccount, to: Recipient, part: OutgoingPart) {
  const messages = "text" in part ? textMessages(part.text) : [await fileMessage(part.messageId, part.file)];
  if (!messages) throw new PermanentFailure(`${TEXT_TOO_LONG}: ${Array.from((part as { text: string }).text).length}`);
  const token = await claimReplyToken(account.id, to.customerId);
  const replied = token ? await reply(account, token, messages) : null;
  if (replied) return replied;
  const { db, schema } = getDb();
  const [message] = await db.select({ createdAt: schema.messages.createdAt }).from(schema.messages).where(eq(schema.messages.id, part.messageId));
  return push(account, to.customerId, messages, retryKey(account.id, part.messageId, message?.createdAt ?? 0));
}

const parts: MessagingParts = {
  async parse(payload, account) {
    const parsed = parseLineEvent(payload);
    if (parsed.type === "message") parsed.customer.name = await profileName(account, parsed.customer.id);
    return parsed;
  },
  downloadMedia: async (account, media) => downloadContent(account, media.id, media.name ?? "file"),
  sendPart,
  checkFile: fileProblem,
};

const receiveMessage = messagingReceive(parts);

export const adapter: ChannelAdapter = {
  kind: "LINE_DM",
  minPlan: PLAN.BASIC,
  fields: [
    { name: "channelSecret", label: "plugin_line.field.channelSecret", type: "password", secret: true, required: true, hint: "plugin_line.hint.channelSecret" },
    {
      name: "channelAccessToken",
      label: "plugin_line.field.channelAccessToken",
      type: "password",
      secret: true,
      required: true,
      hint: "plugin_line.hint.channelAccessToken",
    },
    { name: "apiBase", label: "plugin_line.field.apiBase", type: "url", placeholder: "https://api.line.me" },
    { name: "dataApiBase", label: "plugin_line.field.dataApiBase", type: "url", placeholder: "https://api-data.line.me", hint: "plugin_line.hint.dataApiBase" },
    { name: "reopenHours", label: "plugin_channels.field.reopenHours", type: "number", placeholder: "24", hint: "plugin_channels.hint.reopenHours" },
  ],
  async test(account) {
    try {
      await lineCall(() => client(account).getBotInfo());
      return { ok: true };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  },
  webhook: {
    verify: (request, account) => verifyLineSignature(request, account.secrets.channelSecret),
    events: (request) => lineEvents(JSON.parse(request.rawBody.toString("utf8"))),
  },
  async receive(event, account) {
    const outcome = await receiveMessage(event, account);
    // the message is stored: its reply token may answer it (a crash before this only costs a push)
    const token = outcome.state === "processed" && account ? replyTokenOf(event.payload) : null;
    if (token && account) await rememberReplyToken(account.id, token.userId, token.token, token.at);
    return outcome;
  },
  send: messagingSend(parts),
  downloadMedia: parts.downloadMedia,
};
