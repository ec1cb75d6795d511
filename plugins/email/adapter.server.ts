// The EMAIL channel adapter: mail in through the built-in SMTP listener (start.server.ts) and IMAP
// polling (imap.server.ts), out through the account's SMTP server or SMTP_RELAY_URL.
import type { ChannelAdapter } from "@plugins/channels/adapter";
import { receiveMail } from "./receive.server";
import { sendReplyMail, testSmtp } from "./outbound.server";
import { testImap, watchImap } from "./imap.server";

export const adapter: ChannelAdapter = {
  kind: "EMAIL",
  // Receiving on the built-in listener needs nothing; IMAP and an own SMTP server are optional.
  fields: [
    { name: "fromName", label: "plugin_email.field.fromName", type: "text" },
    { name: "imapHost", label: "plugin_email.field.imapHost", type: "text", hint: "plugin_email.hint.imap" },
    { name: "imapPort", label: "plugin_email.field.imapPort", type: "number", placeholder: "993" },
    { name: "imapSecure", label: "plugin_email.field.imapSecure", type: "checkbox" },
    { name: "imapUser", label: "plugin_email.field.imapUser", type: "text" },
    { name: "imapPassword", label: "plugin_email.field.imapPassword", type: "password", secret: true },
    { name: "imapMailbox", label: "plugin_email.field.imapMailbox", type: "text", placeholder: "INBOX" },
    { name: "smtpHost", label: "plugin_email.field.smtpHost", type: "text", hint: "plugin_email.hint.smtp" },
    { name: "smtpPort", label: "plugin_email.field.smtpPort", type: "number", placeholder: "587" },
    { name: "smtpSecure", label: "plugin_email.field.smtpSecure", type: "checkbox" },
    { name: "smtpUser", label: "plugin_email.field.smtpUser", type: "text" },
    { name: "smtpPassword", label: "plugin_email.field.smtpPassword", type: "password", secret: true },
  ],
  async test(account) {
    const smtp = await testSmtp(account);
    if (!smtp.ok || !account.config.imapHost) return smtp;
    return testImap(account);
  },
  receive: receiveMail,
  send: sendReplyMail,
  watch: (account) => (account.config.imapHost ? watchImap(account) : async () => {}),
};
