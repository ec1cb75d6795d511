// The Instagram channels of one Instagram professional account (an account of kind IG_PM), on
// Meta's Graph API. In through the channel layer's webhook (X-Hub-Signature-256, hub.challenge):
// direct messages (IG_PM), comment threads on the account's posts (IG_POST: the top-level comment
// and its replies are one conversation, hung on the post) and @mentions in others' captions,
// comments and stories (IG_MENTION). Out: a direct message through the Send API (POST
// /me/messages; files uploaded to /me/message_attachments first), a reply comment (POST
// /{comment-id}/replies) or a mention reply (POST /{ig-id}/mentions). Direct messages follow the
// 24-hour window: after it a human agent's message carries the HUMAN_AGENT tag, for 7 days.
import { and, eq } from "drizzle-orm";
import { getDb } from "@db/client";
import type { ChannelAccount, ChannelAdapter } from "@plugins/channels/adapter";
import { messagingReact, messagingReceive, messagingSend, type MessagingParts, type OutgoingPart, type Recipient } from "@plugins/channels/messaging.server";
import { META_FILE_HOSTS, graphCall, graphFailure, graphUrl, hubChallenge, verifyHubSignature } from "@plugins/meta/graph.server";
import { fetchProviderFile } from "@plugins/channels/media.server";
import { metaAccountFor } from "@plugins/meta/accounts.server";
import { PermanentFailure, isPermanentFailure } from "~/jobs/queue.server";
import { log } from "~/ops/log.server";
import { PLAN } from "~/permissions";
import { STORY_REF, instagramEvents, mentionRef, parseInstagramEvent, type MentionToFetch } from "./events";
import { FILES_NOT_SENT_IN_COMMENTS, NO_FILES_IN_COMMENTS, TEXT_MAX_BYTES, TEXT_TOO_LONG, WINDOW_CLOSED, fileProblem, mediaKind, windowFor } from "./limits";

/** A comment's text: at most 2,200 characters (Instagram's caption and comment limit). */
const COMMENT_MAX_CHARS = 2200;

const igIdOf = (account: ChannelAccount) => encodeURIComponent(account.config.igId ?? "");

/** The customer's name: from their earlier conversation here, else asked of Instagram once (best effort). */
async function customerName(account: ChannelAccount, igsid: string) {
  const { db, schema } = getDb();
  const th = schema.channelThreads;
  const [known] = await db
    .select({ name: schema.tickets.contactName })
    .from(th)
    .innerJoin(schema.tickets, eq(schema.tickets.id, th.ticketId))
    .where(and(eq(th.accountId, account.id), eq(th.customerId, igsid)))
    .limit(1);
  if (known?.name && known.name !== igsid) return known.name;
  try {
    const profile = await graphCall<{ name?: string; username?: string }>(account, `${encodeURIComponent(igsid)}?fields=name,username`);
    return profile.name || (profile.username ? `@${profile.username}` : "");
  } catch (error) {
    log.info({ accountId: account.id, error: (error as Error).message }, "instagram: no profile for a customer");
    return "";
  }
}

interface MentionedComment {
  mentioned_comment?: { id?: string; text?: string; username?: string; timestamp?: string; media?: { id?: string; permalink?: string } };
}
interface MentionedMedia {
  mentioned_media?: { id?: string; caption?: string; username?: string; permalink?: string; timestamp?: string };
}

/** A caption or comment mention as a customer's message: its text fetched from Graph (the webhook names only the ids). */
async function mentionMessage(account: ChannelAccount, m: MentionToFetch) {
  const ig = igIdOf(account);
  let found: { text?: string; username?: string; permalink?: string };
  if (m.commentId) {
    const fields = `mentioned_comment.comment_id(${encodeURIComponent(m.commentId)}){text,username,timestamp,media{id,permalink}}`;
    const got = (await graphCall<MentionedComment>(account, `${ig}?fields=${fields}`)).mentioned_comment ?? {};
    found = { text: got.text, username: got.username, permalink: got.media?.permalink };
  } else {
    const fields = `mentioned_media.media_id(${encodeURIComponent(m.mediaId)}){caption,username,permalink,timestamp}`;
    const got = (await graphCall<MentionedMedia>(account, `${ig}?fields=${fields}`)).mentioned_media ?? {};
    found = { text: got.caption, username: got.username, permalink: got.permalink };
  }
  return {
    type: "message" as const,
    providerMessageId: `mention:${m.mediaId}:${m.commentId ?? ""}`,
    // the mention's comment (or the caption's post) is what the answer goes to
    customer: { id: m.commentId ?? m.mediaId, name: found.username ? `@${found.username}` : "" },
    text: [found.text, found.permalink].filter(Boolean).join("\n"),
    media: [],
    ref: mentionRef(m.mediaId),
    title: found.text || undefined,
    channel: "IG_MENTION" as const,
    at: m.at,
  };
}

/** Instagram's direct messages carry files up to 25 MB (video): far more is not what Instagram sends. */
const MEDIA_MAX = 100 * 1024 * 1024;
const EXTENSIONS: Record<string, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "video/mp4": "mp4",
  "video/quicktime": "mov",
  "audio/mp4": "m4a",
  "audio/aac": "aac",
  "audio/mpeg": "mp3",
  "audio/wav": "wav",
  "application/pdf": "pdf",
};

/** A customer's file from the address Instagram gave (a signed CDN link: no token sent along). */
async function downloadMedia(account: ChannelAccount, media: { id: string; name?: string }) {
  const got = await fetchProviderFile(media.id, { hosts: META_FILE_HOSTS, apiBase: graphUrl(account), maxBytes: MEDIA_MAX, failure: graphFailure });
  return { ...got, name: `${media.name || "file"}.${EXTENSIONS[got.mime] ?? "bin"}` };
}

async function uploadAttachment(account: ChannelAccount, part: Extract<OutgoingPart, { file: unknown }>, type: string) {
  const form = new FormData();
  form.append("platform", "instagram");
  form.append("message", JSON.stringify({ attachment: { type, payload: { is_reusable: false } } }));
  form.append("filedata", new Blob([new Uint8Array(await part.file.bytes())], { type: part.file.type }), part.file.name);
  const answer = await graphCall<{ attachment_id?: string }>(account, "me/message_attachments", { method: "POST", body: form });
  if (!answer.attachment_id) throw new Error("Instagram answered the upload without an attachment id");
  return answer.attachment_id;
}

/** A direct message to the customer (their conversation, or the answer to their story mention). */
async function directMessage(account: ChannelAccount, to: Recipient, part: OutgoingPart) {
  const window = windowFor(to.lastCustomerMessageAt);
  // Instagram refuses messages more than 7 days after the customer's last one, even tagged: say so before trying
  if (window === "closed") throw new PermanentFailure(WINDOW_CLOSED);
  let message: Record<string, unknown>;
  if ("text" in part) {
    const bytes = Buffer.byteLength(part.text, "utf8");
    if (bytes > TEXT_MAX_BYTES) throw new PermanentFailure(`${TEXT_TOO_LONG}: ${bytes} / ${TEXT_MAX_BYTES}`);
    message = { text: part.text };
  } else {
    const type = mediaKind(part.file.type);
    if (!type) throw new PermanentFailure(fileProblem(part.file) ?? "");
    message = { attachment: { type, payload: { attachment_id: await uploadAttachment(account, part, type) } } };
  }
  const answer = await graphCall<{ recipient_id?: string; message_id?: string }>(account, "me/messages", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      recipient: { id: to.customerId },
      ...(window === "response" ? { messaging_type: "RESPONSE" } : { messaging_type: "MESSAGE_TAG", tag: "HUMAN_AGENT" }),
      message,
    }),
  });
  if (!answer.message_id) throw new Error("Instagram answered without a message id");
  return answer.message_id;
}

/** A comment: the reply in a post's comment thread, or the answer to a caption or comment mention. */
async function comment(account: ChannelAccount, to: Recipient, channel: string, part: OutgoingPart) {
  if (!("text" in part)) throw new PermanentFailure(`${NO_FILES_IN_COMMENTS}: ${part.file.name}`);
  const chars = Array.from(part.text).length;
  if (chars > COMMENT_MAX_CHARS) throw new PermanentFailure(`${TEXT_TOO_LONG}: ${chars} / ${COMMENT_MAX_CHARS}`);
  const form = new URLSearchParams({ message: part.text });
  let path: string;
  if (channel === "IG_POST") path = `${encodeURIComponent(to.customerId)}/replies`;
  else {
    const mediaId = to.ref.slice(mentionRef("").length);
    form.set("media_id", mediaId);
    if (to.customerId !== mediaId) form.set("comment_id", to.customerId);
    path = `${igIdOf(account)}/mentions`;
  }
  const answer = await graphCall<{ id?: string }>(account, path, { method: "POST", body: form });
  if (!answer.id) throw new Error("Instagram answered without a comment id");
  return answer.id;
}

/** Whether an answer goes out as a comment (a post's thread, a caption or comment mention), not a direct message. */
const inComments = (to: Pick<Recipient, "channel" | "ref">) => to.channel === "IG_POST" || (to.channel === "IG_MENTION" && to.ref !== STORY_REF);

async function sendPart(account: ChannelAccount, to: Recipient, part: OutgoingPart) {
  if (inComments(to)) return comment(account, to, to.channel, part);
  return directMessage(account, to, part);
}

/** The account's reaction on a customer's direct message: Instagram takes only "love", so any agent reaction is one (unreact takes it back). */
async function react(account: ChannelAccount, to: Recipient, providerMessageId: string, emoji: string | null) {
  if (to.channel !== "IG_PM") return;
  await graphCall(account, "me/messages", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      recipient: { id: to.customerId },
      sender_action: emoji ? "react" : "unreact",
      payload: emoji ? { message_id: providerMessageId, reaction: "love" } : { message_id: providerMessageId },
    }),
  });
}

const parts: MessagingParts = {
  async parse(payload, account) {
    const parsed = parseInstagramEvent(payload, account.config.igId ?? "", account.address);
    if (parsed.type === "mention") throw new Error("a mention reaches parse before its text was fetched");
    if (parsed.type === "message" && !parsed.customer.name && parsed.channel !== "IG_POST")
      parsed.customer.name = await customerName(account, parsed.customer.id);
    return parsed;
  },
  downloadMedia,
  sendPart,
  // comments take text only: a file is refused before the reply's text goes out
  checkFile: (file, to) => (inComments(to) ? `${NO_FILES_IN_COMMENTS}: ${file.name}` : fileProblem(file)),
  react,
};

const receiveMessage = messagingReceive(parts);

export const adapter: ChannelAdapter = {
  kind: "IG_PM",
  minPlan: PLAN.BASIC,
  fields: [
    { name: "igId", label: "plugin_instagram.field.igId", type: "text", required: true, hint: "plugin_instagram.hint.igId" },
    {
      name: "accessToken",
      label: "plugin_instagram.field.accessToken",
      type: "password",
      secret: true,
      required: true,
      hint: "plugin_instagram.hint.accessToken",
    },
    { name: "appSecret", label: "plugin_instagram.field.appSecret", type: "password", secret: true, required: true, hint: "plugin_instagram.hint.appSecret" },
    {
      name: "verifyToken",
      label: "plugin_instagram.field.verifyToken",
      type: "password",
      secret: true,
      required: true,
      hint: "plugin_instagram.hint.verifyToken",
    },
    { name: "apiBase", label: "plugin_instagram.field.apiBase", type: "url", placeholder: "https://graph.facebook.com/v21.0" },
    { name: "reopenHours", label: "plugin_channels.field.reopenHours", type: "number", placeholder: "24", hint: "plugin_channels.hint.reopenHours" },
  ],
  // a comment answer carries text only (the Graph API's comment replies and mention answers take a
  // message and nothing else): the reply box says so before a file is chosen, as the desk says of reactions
  async composerHint(ticket) {
    if (ticket.channel !== "IG_POST" && ticket.channel !== "IG_MENTION") return null;
    const { db, schema } = getDb();
    const [row] = await db.select({ ref: schema.tickets.ref }).from(schema.tickets).where(eq(schema.tickets.id, ticket.id));
    return inComments({ channel: ticket.channel, ref: row?.ref ?? "" }) ? { notice: FILES_NOT_SENT_IN_COMMENTS } : null;
  },
  async test(account) {
    try {
      await graphCall(account, `${igIdOf(account)}?fields=username,name`);
      return { ok: true };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  },
  webhook: {
    handshake: (request, account) => hubChallenge(request, account.secrets.verifyToken),
    verify: (request, account) => verifyHubSignature(request, account.secrets.appSecret),
    events: (request) => instagramEvents(JSON.parse(request.rawBody.toString("utf8"))),
  },
  async receive(event, took) {
    // the app's call may carry another of our Instagram accounts' entries: that account takes them
    const igId = String((event.payload as { igId?: unknown } | null)?.igId ?? "");
    const account = took && (await metaAccountFor(took, ["IG_PM"], "igId", igId));
    if (took && !account) return { state: "quarantined", reason: `for Instagram account ${igId}, which no enabled Instagram account of this app serves` };
    let parsed: ReturnType<typeof parseInstagramEvent> | null = null;
    try {
      parsed = account ? parseInstagramEvent(event.payload, account.config.igId ?? "", account.address) : null;
    } catch {
      parsed = null; // messagingReceive keeps it for inspection
    }
    if (!account || parsed?.type !== "mention") return receiveMessage(event, account);
    // a mention names only ids: its text is fetched first (a refusal keeps the event for an admin, trouble tries again)
    let message;
    try {
      message = await mentionMessage(account, parsed);
    } catch (error) {
      if (isPermanentFailure(error)) return { state: "quarantined", reason: `the mention could not be read: ${(error as Error).message}`.slice(0, 500) };
      throw error;
    }
    return messagingReceive({ ...parts, parse: () => message })(event, account);
  },
  send: messagingSend(parts),
  downloadMedia: parts.downloadMedia,
  react: messagingReact(parts),
};
