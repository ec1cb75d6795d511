// The WHATSAPP channel: WhatsApp Business Cloud API (Meta's Graph). In through the channel layer's
// webhook (X-Hub-Signature-256, hub.challenge), out through POST /{phone-number-id}/messages;
// files are uploaded to /{phone-number-id}/media first. The customer-service window: free text
// only within 24 hours of the customer's last message, templates after that.
import type { ChannelAdapter } from "@plugins/channels/adapter";
import {
  lastCustomerMessageAt,
  messagingReact,
  messagingReceive,
  messagingSend,
  type MessagingParts,
  type OutgoingPart,
  type Recipient,
} from "@plugins/channels/messaging.server";
import { downloadGraphMedia, graphCall, hubChallenge, verifyHubSignature } from "@plugins/meta/graph.server";
import { metaAccountFor } from "@plugins/meta/accounts.server";
import { PermanentFailure } from "~/jobs/queue.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import type { StoredFile } from "~/conversation/model.server";
import { parseWhatsappEvent, whatsappEvents } from "./events";
import { WINDOW_CLOSED, WINDOW_MS, mediaKind, fileProblem } from "./limits";
import { templateOfMessage } from "./templates.server";

type SendAnswer = { messages?: { id: string }[] };

async function uploadMedia(account: ChannelAccount, file: StoredFile, bytes: Buffer) {
  const form = new FormData();
  form.append("messaging_product", "whatsapp");
  form.append("type", file.type);
  form.append("file", new Blob([new Uint8Array(bytes)], { type: file.type }), file.name);
  const answer = await graphCall<{ id: string }>(account, `${encodeURIComponent(account.config.phoneNumberId)}/media`, { method: "POST", body: form });
  return answer.id;
}

const windowOpen = (lastCustomerMessageAt: number | null, now = Date.now()) => !!lastCustomerMessageAt && now - lastCustomerMessageAt <= WINDOW_MS;

async function sendPart(account: ChannelAccount, to: Recipient, part: OutgoingPart) {
  const template = "text" in part ? await templateOfMessage(part.messageId) : null;
  // outside the window WhatsApp refuses anything but a template (error 131047): say so before trying
  if (!template && !windowOpen(to.lastCustomerMessageAt)) throw new PermanentFailure(WINDOW_CLOSED);
  let message: Record<string, unknown>;
  if (template) {
    const parameters = template.params.map((text) => ({ type: "text", text }));
    message = {
      type: "template",
      template: { name: template.name, language: { code: template.language }, components: parameters.length ? [{ type: "body", parameters }] : [] },
    };
  } else if ("text" in part) message = { type: "text", text: { body: part.text, preview_url: false } };
  else {
    const id = await uploadMedia(account, part.file, await part.file.bytes());
    const kind = mediaKind(part.file.type);
    message = { type: kind, [kind]: kind === "document" ? { id, filename: part.file.name } : { id } };
  }
  const answer = await graphCall<SendAnswer>(account, `${encodeURIComponent(account.config.phoneNumberId)}/messages`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ messaging_product: "whatsapp", recipient_type: "individual", to: to.customerId, ...message }),
  });
  const id = answer.messages?.[0]?.id;
  if (!id) throw new Error("WhatsApp answered without a message id");
  return id;
}

/** The business's reaction on a customer's message; an empty emoji takes it back (WhatsApp's reaction message). */
async function react(account: ChannelAccount, to: Recipient, providerMessageId: string, emoji: string | null) {
  if (!windowOpen(to.lastCustomerMessageAt)) throw new PermanentFailure(WINDOW_CLOSED);
  await graphCall<SendAnswer>(account, `${encodeURIComponent(account.config.phoneNumberId)}/messages`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: to.customerId,
      type: "reaction",
      reaction: { message_id: providerMessageId, emoji: emoji ?? "" },
    }),
  });
}

const parts: MessagingParts = {
  parse: (payload, account) => parseWhatsappEvent(payload, account.config.phoneNumberId ?? ""),
  downloadMedia: async (account, media) => {
    const got = await downloadGraphMedia(account, media.id);
    return { bytes: got.bytes, mime: media.mime || got.mime, name: media.name || "file" };
  },
  sendPart,
  checkFile: fileProblem,
  react,
};

const receiveMessage = messagingReceive(parts);

export const adapter: ChannelAdapter = {
  kind: "WHATSAPP",
  fields: [
    { name: "phoneNumberId", label: "plugin_whatsapp.field.phoneNumberId", type: "text", required: true, hint: "plugin_whatsapp.hint.phoneNumberId" },
    { name: "businessAccountId", label: "plugin_whatsapp.field.businessAccountId", type: "text" },
    { name: "accessToken", label: "plugin_whatsapp.field.accessToken", type: "password", secret: true, required: true },
    { name: "appSecret", label: "plugin_whatsapp.field.appSecret", type: "password", secret: true, required: true, hint: "plugin_whatsapp.hint.appSecret" },
    {
      name: "verifyToken",
      label: "plugin_whatsapp.field.verifyToken",
      type: "password",
      secret: true,
      required: true,
      hint: "plugin_whatsapp.hint.verifyToken",
    },
    { name: "apiBase", label: "plugin_whatsapp.field.apiBase", type: "url", placeholder: "https://graph.facebook.com/v21.0" },
    { name: "reopenHours", label: "plugin_channels.field.reopenHours", type: "number", placeholder: "24", hint: "plugin_channels.hint.reopenHours" },
  ],
  // outside the window the reply box says so and leads to the templates
  async composerHint(ticket) {
    if (windowOpen(await lastCustomerMessageAt(ticket.id))) return null;
    return { notice: WINDOW_CLOSED, link: { href: `/whatsapp/template/${ticket.ticketNumber}`, label: "plugin_whatsapp.template.open" } };
  },
  async test(account) {
    try {
      await graphCall(account, `${encodeURIComponent(account.config.phoneNumberId)}?fields=display_phone_number,verified_name`);
      return { ok: true };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  },
  webhook: {
    handshake: (request, account) => hubChallenge(request, account.secrets.verifyToken),
    verify: (request, account) => verifyHubSignature(request, account.secrets.appSecret),
    events: (request) => whatsappEvents(JSON.parse(request.rawBody.toString("utf8"))),
  },
  // one Meta app may serve several of our numbers at one callback URL: each entry goes to its number's account
  async receive(event, account) {
    const numberId = (event.payload as { phoneNumberId?: string } | null)?.phoneNumberId ?? "";
    const owner = account && (await metaAccountFor(account, ["WHATSAPP"], "phoneNumberId", numberId));
    if (account && !owner) return { state: "quarantined", reason: `for phone number ${numberId}, which no enabled WhatsApp account of this app serves` };
    return receiveMessage(event, owner);
  },
  send: messagingSend(parts),
  downloadMedia: parts.downloadMedia,
  react: messagingReact(parts),
};
