// The FB_PM channel: a Facebook Page's Messenger conversations, and (on the same account) its posts'
// comment threads, whose tickets are FB_PAGE_POST. In through the channel layer's webhook
// (X-Hub-Signature-256, hub.challenge; one Meta app may send every Page's events to any of its
// Pages' URLs: each entry goes to the account of its Page). Out through POST /{page-id}/messages
// (files uploaded with it as multipart filedata), within Messenger's windows; a comment thread is
// answered with a reply comment, POST /{top-level-comment-id}/comments (a picture as a photo
// comment: attachment_url, its signed public address).
import type { ChannelAccount, ChannelAdapter } from "@plugins/channels/adapter";
import { messagingReact, messagingReceive, messagingSend, type MessagingParts, type OutgoingPart, type Recipient } from "@plugins/channels/messaging.server";
import { META_FILE_HOSTS, graphCall, graphUrl, hubChallenge, verifyHubSignature } from "@plugins/meta/graph.server";
import { fetchProviderFile } from "@plugins/channels/media.server";
import { metaAccountFor } from "@plugins/meta/accounts.server";
import { PermanentFailure } from "~/jobs/queue.server";
import { log } from "~/ops/log.server";
import { facebookEvents, pageOf, parseComment, parseMessaging, watermarkOf, type FbPayload } from "./events";
import { publicFileUrl } from "@plugins/channels/public-files.server";
import { WINDOW_CLOSED, attachmentType, fileProblem, messagingType, textChunks } from "./limits";
import { applyWatermark, knownCustomerName } from "./receipts.server";

const MEDIA_MAX = 100 * 1024 * 1024;

type SendAnswer = { recipient_id?: string; message_id?: string };

// names asked of Graph lately (a batch of a new customer's messages asks once)
const NAMES_MAX = 5000;
const names = new Map<string, string>();

/** The customer's name: as their conversation has it, else from their Messenger profile (best effort). */
async function customerName(account: ChannelAccount, psid: string) {
  const known = await knownCustomerName(account, psid);
  if (known) return known;
  const key = `${account.id}:${psid}`;
  if (names.has(key)) return names.get(key)!;
  try {
    const p = await graphCall<{ name?: string; first_name?: string; last_name?: string }>(
      account,
      `${encodeURIComponent(psid)}?fields=first_name,last_name,name`,
    );
    const name = p.name || [p.first_name, p.last_name].filter(Boolean).join(" ");
    if (names.size >= NAMES_MAX) names.delete(names.keys().next().value!);
    if (name) names.set(key, name);
    return name;
  } catch (error) {
    log.info({ accountId: account.id, err: error }, "facebook: no profile for the customer; their id stands for the name");
    return "";
  }
}

/** A customer's file from Facebook's CDN (a signed address: no token is sent along). */
async function downloadMedia(account: ChannelAccount, media: { id: string; name?: string }) {
  // an expired or failing address: the event stays stored and is tried again with backoff
  const got = await fetchProviderFile(media.id, {
    hosts: META_FILE_HOSTS,
    apiBase: graphUrl(account),
    // Messenger carries files up to 25 MB: anything far larger is not what Facebook sends
    maxBytes: MEDIA_MAX,
    failure: (response) => new Error(`Facebook answered ${response.status} for a customer's file`),
  });
  return { ...got, name: media.name || "file" };
}

async function sendMessenger(account: ChannelAccount, to: Recipient, part: OutgoingPart) {
  // Messenger refuses a Page's messages 7 days after the customer's last one: say so before trying
  const type = messagingType(to.lastCustomerMessageAt);
  if (!type) throw new PermanentFailure(WINDOW_CLOSED);
  const path = `${encodeURIComponent(account.config.pageId)}/messages`;
  const recipient = { id: to.customerId };
  let first = "";
  if ("text" in part) {
    // the channel layer hands a long answer over in pieces of at most TEXT_MAX (textPieces below)
    const answer = await graphCall<SendAnswer>(account, path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ recipient, ...type, message: { text: part.text } }),
    });
    first = answer.message_id ?? "";
  } else {
    const form = new FormData();
    form.append("recipient", JSON.stringify(recipient));
    form.append("messaging_type", type.messaging_type);
    if (type.tag) form.append("tag", type.tag);
    form.append("message", JSON.stringify({ attachment: { type: attachmentType(part.file.type), payload: { is_reusable: false } } }));
    form.append("filedata", new Blob([new Uint8Array(await part.file.bytes())], { type: part.file.type }), part.file.name);
    first = (await graphCall<SendAnswer>(account, path, { method: "POST", body: form })).message_id ?? "";
  }
  if (!first) throw new Error("Messenger answered without a message id");
  return first;
}

/** The Page's reaction on a customer's Messenger message (sender action react, or unreact to take it back); comments have none. */
async function react(account: ChannelAccount, to: Recipient, providerMessageId: string, emoji: string | null) {
  if (to.channel !== "FB_PM") return;
  await graphCall<SendAnswer>(account, `${encodeURIComponent(account.config.pageId)}/messages`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      recipient: { id: to.customerId },
      sender_action: emoji ? "react" : "unreact",
      payload: emoji ? { message_id: providerMessageId, reaction: emoji } : { message_id: providerMessageId },
    }),
  });
}

async function sendPart(account: ChannelAccount, to: Recipient, part: OutgoingPart) {
  if (to.channel !== "FB_PAGE_POST") return sendMessenger(account, to, part);
  const problem = "text" in part ? null : fileProblem(part.file, to.channel);
  if (problem) throw new PermanentFailure(problem);
  // the thread's conversation key is its top-level comment: the answer is a reply under it; a
  // picture is a photo comment Facebook fetches from the file's signed address
  const body = "text" in part ? { message: part.text } : { attachment_url: publicFileUrl(part.messageId, part.file.name) };
  const answer = await graphCall<{ id?: string }>(account, `${encodeURIComponent(to.customerId)}/comments`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!answer.id) throw new Error("Facebook answered the comment without its id");
  return answer.id;
}

const parts: MessagingParts = {
  async parse(payload, account) {
    const p = payload as FbPayload;
    if (p?.kind === "other") return { type: "ignored", reason: `Facebook change "${p.field}" is not handled` };
    if (p?.kind === "comment") return parseComment(p.value);
    if (p?.kind !== "messaging") throw new Error("not a Facebook event");
    const psid = p.event.sender?.id;
    const speaks = !!(p.event.message?.mid || p.event.postback);
    return parseMessaging(p.event, speaks && psid ? await customerName(account, psid) : "");
  },
  downloadMedia,
  sendPart,
  // a comment is answered by one reply comment; Messenger takes TEXT_MAX characters a message
  textPieces: (text, to) => (to.channel === "FB_PAGE_POST" ? [text] : textChunks(text)),
  checkFile: (file, to) => fileProblem(file, to.channel),
  react,
};

const receiveMessage = messagingReceive(parts);

export const adapter: ChannelAdapter = {
  kind: "FB_PM",
  fields: [
    { name: "pageId", label: "plugin_facebook.field.pageId", type: "text", required: true, hint: "plugin_facebook.hint.pageId" },
    {
      name: "accessToken",
      label: "plugin_facebook.field.accessToken",
      type: "password",
      secret: true,
      required: true,
      hint: "plugin_facebook.hint.accessToken",
    },
    { name: "appSecret", label: "plugin_facebook.field.appSecret", type: "password", secret: true, required: true, hint: "plugin_facebook.hint.appSecret" },
    {
      name: "verifyToken",
      label: "plugin_facebook.field.verifyToken",
      type: "password",
      secret: true,
      required: true,
      hint: "plugin_facebook.hint.verifyToken",
    },
    { name: "apiBase", label: "plugin_facebook.field.apiBase", type: "url", placeholder: "https://graph.facebook.com/v21.0" },
    { name: "reopenHours", label: "plugin_channels.field.reopenHours", type: "number", placeholder: "24", hint: "plugin_channels.hint.reopenHours" },
  ],
  validate(config): Record<string, string> {
    return /^\d{1,30}$/.test((config.pageId ?? "").trim()) ? {} : { pageId: "plugin_facebook.error.pageId" };
  },
  async test(account) {
    try {
      await graphCall(account, `${encodeURIComponent(account.config.pageId)}?fields=id,name`);
      return { ok: true };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  },
  webhook: {
    handshake: (request, account) => hubChallenge(request, account.secrets.verifyToken),
    verify: (request, account) => verifyHubSignature(request, account.secrets.appSecret),
    events: (request) => facebookEvents(JSON.parse(request.rawBody.toString("utf8"))),
  },
  async receive(event, account) {
    if (!account) return receiveMessage(event, account);
    // the app's call may carry another of our Pages' entries: that Page's account takes them
    const pageId = pageOf(event.payload);
    const owner = await metaAccountFor(account, ["FB_PM"], "pageId", pageId);
    if (!owner) return { state: "quarantined", reason: `for Page ${pageId}, which no enabled Facebook account of this app serves` };
    const receipt = watermarkOf(event.payload);
    if (receipt) return applyWatermark(event, owner, receipt);
    return receiveMessage(event, owner);
  },
  send: messagingSend(parts),
  downloadMedia: parts.downloadMedia,
  react: messagingReact(parts),
};
