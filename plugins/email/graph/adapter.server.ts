// The GRAPH_EMAIL channel adapter: a Microsoft 365 mailbox through Microsoft Graph (delta query
// in, sendMail out). Built in issue 14 (helper "imapgraph").
import type { ChannelAdapter } from "@plugins/channels/adapter";
import { receiveMail } from "../receive.server";

export const adapter: ChannelAdapter = {
  kind: "GRAPH_EMAIL",
  fields: [
    { name: "tenantId", label: "plugin_email.field.tenantId", type: "text", required: true },
    { name: "clientId", label: "plugin_email.field.clientId", type: "text", required: true },
    { name: "clientSecret", label: "plugin_email.field.clientSecret", type: "password", secret: true, required: true },
    { name: "graphUrl", label: "plugin_email.field.graphUrl", type: "url", placeholder: "https://graph.microsoft.com/v1.0" },
    { name: "loginUrl", label: "plugin_email.field.loginUrl", type: "url", placeholder: "https://login.microsoftonline.com" },
  ],
  async test() {
    return { ok: false, error: "not built yet" };
  },
  // Graph hands over each mail's MIME: the same receive as SMTP and IMAP
  receive: receiveMail,
  async send() {
    throw new Error("not built yet");
  },
};
