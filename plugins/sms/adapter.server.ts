// The SMS channel: one account kind, two gateways (the account's `gateway` setting) — Twilio's
// Messages API (twilio.server.ts) or the plain signed HTTP webhook any gateway can speak
// (gateway.server.ts). In through the channel layer's webhook door, each gateway's signature
// checked first; out through the layer's messaging send, text as SMS and each file as an MMS the
// gateway fetches from a signed link of ours (public.server.ts), within MMS limits (limits.ts).
import type { ChannelAccount, ChannelAdapter } from "@plugins/channels/adapter";
import { messagingReceive, messagingSend, type MessagingParts, type OutgoingPart, type Recipient } from "@plugins/channels/messaging.server";
import { PermanentFailure } from "~/jobs/queue.server";
import { GATEWAYS, type SmsDialect } from "./dialect";
import { ACCOUNT_SID, twilio } from "./twilio.server";
import { webhookGateway } from "./gateway.server";
import { fileProblem, NO_PUBLIC_URL, textProblem } from "./limits";
import { mediaLink } from "./public.server";

/** A shared secret shorter than this is too easy to guess. */
export const SECRET_MIN = 16;

const dialect = (account: ChannelAccount): SmsDialect => (account.config.gateway === "webhook" ? webhookGateway : twilio);

async function sendPart(account: ChannelAccount, to: Recipient, part: OutgoingPart) {
  const recipient = to.phone || to.customerId;
  if ("text" in part) {
    const problem = textProblem(part.text);
    if (problem) throw new PermanentFailure(problem);
    return dialect(account).send(account, { messageId: part.messageId, to: recipient, text: part.text });
  }
  const url = mediaLink(account, part.messageId);
  if (!url) throw new PermanentFailure(NO_PUBLIC_URL);
  const { name, type, size } = part.file;
  return dialect(account).send(account, { messageId: part.messageId, to: recipient, text: "", media: { url, name, type, size } });
}

const parts: MessagingParts = {
  parse: (payload, account) => dialect(account).parse(payload, account),
  downloadMedia: (account, media) => dialect(account).downloadMedia(account, media),
  sendPart,
  checkFile: fileProblem,
};

export const adapter: ChannelAdapter = {
  kind: "SMS",
  fields: [
    {
      name: "gateway",
      label: "plugin_sms.field.gateway",
      type: "select",
      required: true,
      options: GATEWAYS.map((g) => ({ value: g, label: `plugin_sms.gateway.${g}` })),
      hint: "plugin_sms.hint.gateway",
    },
    { name: "accountSid", label: "plugin_sms.field.accountSid", type: "text", hint: "plugin_sms.hint.accountSid", placeholder: "AC…" },
    { name: "authToken", label: "plugin_sms.field.authToken", type: "password", secret: true, hint: "plugin_sms.hint.authToken" },
    { name: "apiBase", label: "plugin_sms.field.apiBase", type: "url", placeholder: "https://api.twilio.com", hint: "plugin_sms.hint.apiBase" },
    { name: "sendUrl", label: "plugin_sms.field.sendUrl", type: "url", hint: "plugin_sms.hint.sendUrl" },
    { name: "sharedSecret", label: "plugin_sms.field.sharedSecret", type: "password", secret: true, hint: "plugin_sms.hint.sharedSecret" },
    { name: "webhookUrl", label: "plugin_sms.field.webhookUrl", type: "url", hint: "plugin_sms.hint.webhookUrl" },
    { name: "reopenHours", label: "plugin_channels.field.reopenHours", type: "number", placeholder: "24", hint: "plugin_channels.hint.reopenHours" },
  ],
  validate(config, secrets, secretsSet) {
    const errors: Record<string, string> = {};
    const has = (name: string) => !!secrets[name] || secretsSet.includes(name);
    if (config.gateway === "webhook") {
      if (!config.sendUrl) errors.sendUrl = "plugin_channels.errors.required";
      if (!has("sharedSecret")) errors.sharedSecret = "plugin_channels.errors.required";
      else if (secrets.sharedSecret && secrets.sharedSecret.length < SECRET_MIN) errors.sharedSecret = "plugin_sms.errors.secretShort";
    } else {
      if (!ACCOUNT_SID.test(config.accountSid ?? "")) errors.accountSid = "plugin_sms.errors.accountSid";
      if (!has("authToken")) errors.authToken = "plugin_channels.errors.required";
    }
    return errors;
  },
  test: (account) => dialect(account).test(account),
  webhook: {
    verify: (request, account) => dialect(account).verify(request, account),
    events: (request, account) => dialect(account).events(request, account),
    accepted: (request, account) => dialect(account).accepted?.(request, account) ?? new Response("ok", { status: 200 }),
  },
  receive: messagingReceive(parts),
  send: messagingSend(parts),
  downloadMedia: parts.downloadMedia,
};
