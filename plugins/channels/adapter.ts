// What a channel plugin (plugins/email, later WhatsApp, LINE, ...) hands the channel layer: one
// adapter per channel kind, named in its plugin.json `channels`. The layer keeps the accounts and
// their secrets, stores inbound events before they are acknowledged, runs the inbound and outbound
// jobs and records delivery states; the adapter only speaks its provider's protocol.
import type { Readable } from "node:stream";
import type { Channel } from "~/conversation/channels";
import type { ComposerHint, ComposerTicket } from "~/conversation/composer-hints.server";

/** An account as adapters see it: settings parsed, secrets opened. Server side only. */
export interface ChannelAccount {
  id: number;
  kind: Channel;
  name: string;
  /** What customers write to (the mailbox address, lower-cased). */
  address: string;
  departmentId: number | null;
  enabled: boolean;
  config: Record<string, string>;
  secrets: Record<string, string>;
}

/** Whether a checkbox setting is on: "1" as the settings page stores it ("on" and "true" as a hand-written config may say). */
export const isTicked = (value: string | undefined) => ["1", "on", "true"].includes((value ?? "").trim().toLowerCase());

/** One field of an account's form on /settings/channels. */
export interface AccountField {
  name: string;
  /** Translation key of the label (the adapter plugin's locale file). */
  label: string;
  /** A ticked checkbox is stored as "1" (read it with isTicked), an unticked one as "". A select stores its option's value. */
  type: "text" | "email" | "number" | "url" | "password" | "checkbox" | "select";
  /** A select's choices (the first is the default); label is a translation key. */
  options?: { value: string; label: string }[];
  /** Stored sealed and never shown back: the form shows whether one is set, and an empty field keeps it. */
  secret?: boolean;
  required?: boolean;
  /** Translation key of a hint shown under the field. */
  hint?: string;
  placeholder?: string;
}

/** A stored inbound event handed to the adapter by the inbound job. */
export interface InboundEvent {
  id: number;
  accountId: number | null;
  provider: string;
  eventKey: string;
  source: string;
  /** What the transport knew (SMTP: ip, helo, mailFrom, rcptTo). */
  meta: Record<string, unknown>;
  /** A webhook event's own JSON (one entry of the provider's batch); null for mail. */
  payload: unknown;
  /** The raw bytes (the whole mail) as stored before the provider was acknowledged, as a stream (mails may be large). */
  raw: () => Promise<Readable>;
  receivedAt: number;
}

/** What became of an inbound event. */
export type ReceiveOutcome =
  | { state: "processed"; ticketId: number; messageId: number | null }
  /** Kept but not made a ticket (a mail claiming to be from an agent, malformed beyond use); the reason is shown to admins. */
  | { state: "quarantined"; reason: string };

/** An agent's reply going out: the messages written together by conversation.reply. */
export interface OutboundMessage {
  ticketId: number;
  /** The reply's messages: its text (if any) first, then one per attachment. */
  messageIds: number[];
  /** Extra recipients the agent gave (spec reply fields cc, email2, toEmail). */
  to: string[];
  cc: string[];
}

/** What a send gave back: the provider's reference, and on messaging channels each message's own id there (receipts name it). */
export interface SendResult {
  providerRef: string;
  sent?: { messageId: number; providerMessageId: string }[];
}

/** A request to an account's webhook URL, as the layer read it (the body raw: signatures are over the exact bytes). */
export interface WebhookRequest {
  method: string;
  url: URL;
  headers: Headers;
  rawBody: Buffer;
}

/** One event of a provider's webhook call (a call may batch many): its unique id at the provider, and its own JSON. */
export interface WebhookEvent {
  key: string;
  payload: unknown;
  /**
   * Whose event it is (the customer's or thread's id at the provider), when it is one of their
   * messages: one lane's events are written one at a time, in the order given (app/jobs lanes).
   */
  lane?: string;
}

/** A webhook-driven channel (WhatsApp, Messenger, LINE, Telegram, X, SMS): the route is the layer's, /hooks/channels/{account id}. */
export interface WebhookAdapter {
  /** GET: the provider's subscription handshake (Meta's hub.challenge, X's CRC). undefined: 405. */
  handshake?(request: WebhookRequest, account: ChannelAccount): Response | undefined;
  /** The provider's signature over the raw body, checked before anything is parsed or stored: false answers 401. */
  verify(request: WebhookRequest, account: ChannelAccount): boolean;
  /** Every event of a verified body; throws when the body is not what the provider sends (it is then kept, quarantined). */
  events(request: WebhookRequest, account: ChannelAccount): WebhookEvent[];
  /** The answer the provider expects once the events are stored (default: 200 "ok"). */
  accepted?(request: WebhookRequest, account: ChannelAccount): Response;
}

/** Which reactions a provider takes (ChannelAdapter.reactions). */
export interface ReactionRules {
  emoji(reaction: string): string | null;
  refused: string;
}

export interface ChannelAdapter {
  kind: Channel;
  /** The fields of an account of this kind, beside the name, address and department every account has. */
  fields: AccountField[];
  /** The lowest plan (PLAN in app/permissions.ts) whose workspace may add an account of this kind (spec section 9); none: every plan. */
  minPlan?: number;
  /**
   * Refuses settings that cannot work: a translation key per bad field. `secretsSet` names the secrets
   * stored already (an edit leaves them empty to keep them), so a secret one choice needs can be required.
   */
  validate?(config: Record<string, string>, secrets: Record<string, string>, secretsSet: string[]): Record<string, string>;
  /** Tries the account's connections (the admin's Test button); the provider's error when one fails. */
  test(account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }>;
  /**
   * Makes a stored event a message (the inbound job). Calls markEventProcessed (inbound.server.ts)
   * in the transaction that writes the message, so a job run again after a crash finds it done.
   */
  receive(event: InboundEvent, account: ChannelAccount | null): Promise<ReceiveOutcome>;
  /**
   * Sends a reply (the outbound job). Throws WaitAndRetry (app/jobs) while it cannot be sent yet
   * (no mail server configured), PermanentFailure when trying again cannot help, any other error
   * to be tried again later; the error's message is shown to the agent.
   */
  send(message: OutboundMessage, account: ChannelAccount): Promise<SendResult>;
  /**
   * Tells the customer's channel of an agent's reaction to one of their messages (the reaction job):
   * `emoji` is the message's reaction now, null when none is left (taken back). Channels without
   * reactions leave it out. Throws as send does.
   */
  react?(account: ChannelAccount, ticketId: number, providerMessageId: string, emoji: string | null): Promise<void>;
  /**
   * A provider that takes only some emoji (Telegram's fixed list): `emoji` gives what one of the
   * desk's reactions is sent as (null: the provider refuses it, and the desk refuses it with the
   * translation key `refused`). Left out: every reaction goes as it is.
   */
  reactions?: ReactionRules;
  /**
   * Fetches a customer's file the provider holds (messaging channels): the media job tries again
   * with it, after the message was written without the file. Throws as send does.
   */
  downloadMedia?(account: ChannelAccount, media: { id: string; mime?: string; name?: string }): Promise<{ bytes: Buffer; mime: string; name: string }>;
  /** Webhook-driven channels: how the layer's webhook route verifies and splits the provider's calls. */
  webhook?: WebhookAdapter;
  /** A rule of the provider the agent should know before writing, shown above the reply box (WhatsApp's closed window). */
  composerHint?(ticket: ComposerTicket): Promise<ComposerHint | null>;
  /** Background work per enabled account (IMAP polling, Graph delta, Telegram long polling): started by the layer, answers its stop. */
  watch?(account: ChannelAccount): () => Promise<void>;
}
