// X (Twitter) on the channel layer: one account kind, TW_DM, whose Account Activity API webhook
// (/hooks/channels/{id}: CRC on GET, x-twitter-webhooks-signature on POST) brings both direct
// messages (TW_DM conversations) and posts mentioning the account (TW_MENTION conversations, one per
// thread: a reply to a post we have joins its conversation). Our own DMs and posts come back on the
// webhook too and are ignored. Out: a DM by POST /2/dm_conversations/with/{customer}/messages, an
// answer to a mention by POST /2/tweets in reply to the customer's last post (280 weighted characters,
// checked first); files go through the v2 chunked media upload. Read receipts move DMs to "read".
import { and, desc, eq } from "drizzle-orm";
import { getDb } from "@db/client";
import type { ChannelAccount, ChannelAdapter } from "@plugins/channels/adapter";
import {
  displayName,
  messagingReceive,
  messagingSend,
  type MessagingParts,
  type OutgoingPart,
  type ParsedEvent,
  type Recipient,
} from "@plugins/channels/messaging.server";
import { PermanentFailure } from "~/jobs/queue.server";
import { client, crcAnswer, downloadXMedia, uploadXMedia, verifyXSignature, xCall } from "./api.server";
import { dmText, mediaRef, mentions, postText, timeOf, xEvents, type XPayload } from "./events";
import { DM_MAX, DM_TOO_LONG, POST_MAX, POST_TOO_LONG, fileProblem, mediaCategory, postLength } from "./limits";
import { sameAppAccount } from "@plugins/channels/accounts.server";

/** A mention conversation's ref: the post that started it. */
const POST_REF = "post:";

/** The message (and its conversation's ref) this account already has under X's id, in or out. */
async function known(account: ChannelAccount, providerMessageId: string) {
  const { db, schema } = getDb();
  const c = schema.channelMessages;
  const [row] = await db
    .select({ direction: c.direction, ref: schema.tickets.ref })
    .from(c)
    .innerJoin(schema.tickets, eq(schema.tickets.id, c.ticketId))
    .where(and(eq(c.accountId, account.id), eq(c.providerMessageId, providerMessageId)));
  return row;
}

const nameOf = (user: { name?: string; screen_name?: string } | undefined, id: string) =>
  displayName(user?.name || (user?.screen_name ? `@${user.screen_name}` : ""), id);

async function parse(payload: unknown, account: ChannelAccount): Promise<ParsedEvent> {
  const p = payload as XPayload | null;
  if (!p || typeof p.forUserId !== "string" || !p.kind) throw new Error("not an X event");
  const me = account.config.userId?.trim();
  if (p.forUserId !== me) return { type: "ignored", reason: `an event for X user ${p.forUserId}, not this account's ${me}` };

  if (p.kind === "dm") {
    const dm = p.event;
    const sender = dm.message_create?.sender_id;
    if (dm.type !== "message_create" || !sender) return { type: "ignored", reason: `X direct message event "${dm.type}" is not handled` };
    // what we sent (from here or X's own app) comes back on the webhook
    if (sender === me) return { type: "ignored", reason: "our own direct message" };
    const media = mediaRef(dm.message_create?.message_data?.attachment?.media, `dm-${dm.id}`);
    return {
      type: "message",
      providerMessageId: dm.id,
      customer: { id: sender, name: nameOf(p.sender, sender) },
      text: dmText(dm),
      media: media ? [media] : [],
      channel: "TW_DM",
      at: timeOf(dm.created_timestamp),
    };
  }

  if (p.kind === "post") {
    const post = p.event;
    const author = post.user?.id_str;
    if (!author) throw new Error("an X post without its author");
    if (author === me) return { type: "ignored", reason: "our own post" };
    if (post.retweeted_status) return { type: "ignored", reason: "a repost" };
    // a reply to a post of a conversation joins it; else a post mentioning us (or replying to us) starts one
    const parent = post.in_reply_to_status_id_str ? await known(account, post.in_reply_to_status_id_str) : undefined;
    const ref = parent?.ref.startsWith(POST_REF) ? parent.ref : mentions(post, me) || post.in_reply_to_user_id_str === me ? `${POST_REF}${post.id_str}` : null;
    if (!ref) return { type: "ignored", reason: "an X post that does not mention this account" };
    const media = (post.extended_tweet?.extended_entities?.media ?? post.extended_entities?.media ?? [])
      .map((m, i) => mediaRef(m, `post-${post.id_str}-${i + 1}`))
      .filter((m) => m !== null);
    return {
      type: "message",
      providerMessageId: post.id_str,
      customer: { id: author, name: nameOf(post.user, author) },
      text: postText(post),
      media,
      ref,
      channel: "TW_MENTION",
      at: timeOf(post.timestamp_ms, post.created_at),
    };
  }

  if (p.kind === "read") {
    const read = p.event;
    if (!read.last_read_event_id || read.sender_id === me) return { type: "ignored", reason: "we read the customer's messages" };
    // the customer read up to one of their own messages: nothing of ours to mark
    if ((await known(account, read.last_read_event_id))?.direction === "in") return { type: "ignored", reason: "read up to the customer's own message" };
    return { type: "receipt", providerMessageId: read.last_read_event_id, state: "read", at: timeOf(read.created_timestamp), coversEarlier: true };
  }
  return { type: "ignored", reason: `X event "${(p as { name?: string }).name}" is not handled` };
}

/** The customer's latest post in the conversation: the agent's answer replies to it. */
async function lastCustomerPost(ticketId: number) {
  const { db, schema } = getDb();
  const c = schema.channelMessages;
  const [last] = await db
    .select({ id: c.providerMessageId })
    .from(c)
    .where(and(eq(c.ticketId, ticketId), eq(c.direction, "in")))
    .orderBy(desc(c.messageId))
    .limit(1);
  return last?.id;
}

/** The dm_event_id X answers a DM with ({data: {dm_conversation_id, dm_event_id}}; the SDK's type leaves out the data wrapper). */
function dmEventId(answer: unknown) {
  const a = answer as { data?: { dm_event_id?: string }; dm_event_id?: string };
  const id = a?.data?.dm_event_id ?? a?.dm_event_id;
  if (!id) throw new Error("X answered the direct message without its dm_event_id");
  return id;
}

async function sendPart(account: ChannelAccount, to: Recipient, part: OutgoingPart): Promise<string> {
  const x = client(account);
  if (to.ref.startsWith(POST_REF)) {
    const inReplyTo = (await lastCustomerPost(to.ticketId)) ?? to.ref.slice(POST_REF.length);
    const reply = { in_reply_to_tweet_id: inReplyTo };
    if ("text" in part) {
      const length = postLength(part.text);
      if (length > POST_MAX) throw new PermanentFailure(`${POST_TOO_LONG}: ${length}`);
      return (await xCall(() => x.tweet({ text: part.text, reply }))).data.id;
    }
    const mediaId = await uploadXMedia(account, await part.file.bytes(), part.file.type, mediaCategory(part.file.type, "tweet"));
    return (await xCall(() => x.tweet({ reply, media: { media_ids: [mediaId] } }))).data.id;
  }
  if ("text" in part) {
    const length = Array.from(part.text).length;
    if (length > DM_MAX) throw new PermanentFailure(`${DM_TOO_LONG}: ${length}`);
    return dmEventId(await xCall(() => x.sendDmToParticipant(to.customerId, { text: part.text })));
  }
  const mediaId = await uploadXMedia(account, await part.file.bytes(), part.file.type, mediaCategory(part.file.type, "dm"));
  return dmEventId(await xCall(() => x.sendDmToParticipant(to.customerId, { attachments: [{ media_id: mediaId }] })));
}

const parts: MessagingParts = {
  parse,
  async downloadMedia(account, media) {
    const got = await downloadXMedia(account, media.id);
    return { bytes: got.bytes, mime: media.mime && got.mime === "application/octet-stream" ? media.mime : got.mime, name: media.name ?? "file" };
  },
  sendPart,
  checkFile: fileProblem,
};

const receiveMessage = messagingReceive(parts);

const USER_ID = /^\d{1,20}$/;

export const adapter: ChannelAdapter = {
  kind: "TW_DM",
  fields: [
    { name: "userId", label: "plugin_x.field.userId", type: "text", required: true, hint: "plugin_x.hint.userId" },
    { name: "consumerKey", label: "plugin_x.field.consumerKey", type: "text", required: true },
    { name: "consumerSecret", label: "plugin_x.field.consumerSecret", type: "password", secret: true, required: true, hint: "plugin_x.hint.consumerSecret" },
    { name: "accessToken", label: "plugin_x.field.accessToken", type: "password", secret: true, hint: "plugin_x.hint.accessToken" },
    { name: "accessTokenSecret", label: "plugin_x.field.accessTokenSecret", type: "password", secret: true },
    { name: "userBearerToken", label: "plugin_x.field.userBearerToken", type: "password", secret: true, hint: "plugin_x.hint.userBearerToken" },
    { name: "apiBase", label: "plugin_x.field.apiBase", type: "url", placeholder: "https://api.x.com" },
    { name: "reopenHours", label: "plugin_channels.field.reopenHours", type: "number", placeholder: "24", hint: "plugin_channels.hint.reopenHours" },
  ],
  validate(config, secrets, secretsSet) {
    const errors: Record<string, string> = {};
    if (config.userId && !USER_ID.test(config.userId.trim())) errors.userId = "plugin_x.errors.userId";
    const has = (name: string) => !!secrets[name] || secretsSet.includes(name);
    const oauth1 = has("accessToken") && has("accessTokenSecret");
    if (!oauth1 && !has("userBearerToken")) {
      errors[has("accessToken") ? "accessTokenSecret" : "accessToken"] = "plugin_x.errors.userToken";
    }
    return errors;
  },
  async test(account) {
    try {
      const me = await xCall(() => client(account).me());
      if (me.data.id !== account.config.userId?.trim()) return { ok: false, error: `plugin_x.delivery.otherUser: @${me.data.username} (${me.data.id})` };
      return { ok: true };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  },
  webhook: {
    handshake: (request, account) => crcAnswer(request, account.secrets.consumerSecret),
    verify: (request, account) => verifyXSignature(request, account.secrets.consumerSecret),
    events: (request) => xEvents(JSON.parse(request.rawBody.toString("utf8"))),
  },
  async receive(event, took) {
    // the app's call may carry another of our X accounts' events (for_user_id): that account takes them
    const forUserId = String((event.payload as { forUserId?: unknown } | null)?.forUserId ?? "");
    const account = took && (await sameAppAccount(took, ["TW_DM"], "userId", forUserId, "consumerSecret"));
    if (took && !account) return { state: "quarantined", reason: `an event for X user ${forUserId}, which no enabled X account of this app serves` };
    return receiveMessage(event, account);
  },
  send: messagingSend(parts),
  downloadMedia: parts.downloadMedia,
};
