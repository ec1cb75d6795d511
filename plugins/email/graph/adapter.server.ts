// The GRAPH_EMAIL channel adapter: a Microsoft 365 mailbox through Microsoft Graph (delta query
// in, sendMail out). account.address is the mailbox (its user principal name).
import type { ChannelAdapter, ChannelAccount, OutboundMessage } from "@plugins/channels/adapter";
import { PermanentFailure } from "~/jobs/queue.server";
import { receiveMail } from "../receive.server";
import { composeReply } from "../outbound.server";
import { GraphError, graphFetch, testGraph } from "./client.server";
import { watchGraph } from "./delta.server";

/** Sends a reply as MIME (base64 in a text/plain body, as Graph's sendMail takes it). */
export async function sendGraphMail(message: OutboundMessage, account: ChannelAccount): Promise<{ providerRef: string }> {
  const reply = await composeReply(message, account);
  try {
    const response = await graphFetch(account, "/sendMail", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: reply.mime.toString("base64"),
    });
    await response.body?.cancel();
  } catch (error) {
    // Graph refused this mail (bad recipient, no permission, malformed): sending it again cannot help
    if (error instanceof GraphError && !error.retryable) throw new PermanentFailure(error.message);
    throw error;
  }
  return { providerRef: reply.messageId };
}

export const adapter: ChannelAdapter = {
  kind: "GRAPH_EMAIL",
  fields: [
    { name: "tenantId", label: "plugin_email.field.tenantId", type: "text", required: true },
    { name: "clientId", label: "plugin_email.field.clientId", type: "text", required: true },
    { name: "clientSecret", label: "plugin_email.field.clientSecret", type: "password", secret: true, required: true },
    { name: "graphUrl", label: "plugin_email.field.graphUrl", type: "url", placeholder: "https://graph.microsoft.com/v1.0" },
    { name: "loginUrl", label: "plugin_email.field.loginUrl", type: "url", placeholder: "https://login.microsoftonline.com" },
  ],
  test: testGraph,
  // Graph hands over each mail's MIME: the same receive as SMTP and IMAP
  receive: receiveMail,
  send: sendGraphMail,
  watch: watchGraph,
};
