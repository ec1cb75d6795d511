// Threading decision for inbound email (issue 14, item 3). Pure: the caller reads the database through ThreadingLookup.
//
// Order: reply token in Delivered-To/To/Cc -> Message-IDs (own id, DSN original, In-Reply-To, References newest first)
// -> Outlook Thread-Index root -> [#n] / "Ticket #n" in the subject -> new ticket.
// The sender is "on" a ticket when it is the customer, a participant, or an authenticated agent/mailbox.
// - Fan-out: a stored id sent to many (bulk, >= FAN_OUT_RECIPIENTS recipients, or stored on 2+ tickets) never pulls
//   a sender who is not on that ticket into it; that id is skipped (older references may still match), else a new ticket.
//   Ids of one-to-one mails and reply tokens let a stranger in: a CC'd or forwarded-to person joins as a participant.
// - Thread-Index: a stranger joins only by reply-all (the mail also goes to someone on the ticket).
// - Subject number: only from someone on that ticket.
// - Forward: outermost prefix Fwd:/FW:/WG:/TR:/RV:... with a To recipient not ours, not an agent, not on the ticket -> new.
// - Auto mail (auto-replies, bounces, bulk) is threaded like any other but never answered and never adds participants.
// - From an agent or our mailbox without SPF/DKIM/DMARC pass: spoofedAgent, treated as a stranger, never answered.
import { randomBytes } from "node:crypto";

export interface MailAddress {
  address: string;
  name?: string;
}

/** A normalised inbound mail. Message ids: trimmed, no angle brackets, host part lower-cased (see normalizeMessageId). */
export interface InboundMail {
  messageId: string;
  inReplyTo?: string | null;
  /** Oldest first, as in the header. */
  references: string[];
  /** Outlook's Thread-Index header, base64. */
  threadIndex?: string | null;
  subject: string;
  from: MailAddress;
  to: MailAddress[];
  cc: MailAddress[];
  replyTo: MailAddress[];
  /** Delivered-To / X-Original-To headers and the SMTP envelope recipients. */
  deliveredTo: string[];
  autoSubmitted?: string | null;
  precedence?: string | null;
  contentType?: string | null;
  xAutoResponseSuppress?: string | null;
  xAutoreply?: string | null;
  xAutorespond?: string | null;
  listId?: string | null;
  returnPath?: string | null;
  date?: string | Date | null;
  /** The caller's verdict: DMARC passed (or, without a DMARC policy, an aligned SPF or DKIM pass). */
  authenticated: boolean;
  /** Message-ID of the original mail quoted inside a DSN or auto-reply, when the caller found one. */
  reportedMessageId?: string | null;
}

export interface TicketRef {
  id: number | string;
  number: number | string;
  customerAddresses: string[];
  participantAddresses: string[];
  closed?: boolean;
  mailboxAddress: string;
}

/** One stored Message-ID (of a mail we sent or received) and the ticket it belongs to. */
export interface StoredMessage {
  messageId: string;
  ticket: TicketRef;
  direction: "in" | "out";
  /** To + Cc + Bcc of an outgoing mail. */
  recipientCount?: number;
  /** Sent by a campaign or bulk action. */
  bulk?: boolean;
}

export interface ThreadingLookup {
  ticketByReplyToken(token: string): Promise<TicketRef | null>;
  ticketsByMessageIds(ids: string[]): Promise<StoredMessage[]>;
  /** root: base64 of the 22-byte Thread-Index header (threadIndexRoot). */
  ticketByThreadIndex(root: string): Promise<TicketRef | null>;
  ticketByNumber(n: string): Promise<TicketRef | null>;
  isAgentAddress(address: string): Promise<boolean>;
}

export interface ThreadingOptions {
  /** Every address (and alias) of our mailboxes, so they never count as customers or new recipients. */
  mailboxAddresses: string[];
}

export type MatchedBy = "token" | "message-id" | "thread-index" | "subject-number";

interface Flags {
  auto: boolean;
  noAutoReply: boolean;
  spoofedAgent: boolean;
}

export type ThreadingDecision =
  ({ action: "append"; ticketId: number | string; matchedBy: MatchedBy; addParticipants: string[] } & Flags) | ({ action: "new"; reason: string } & Flags);

/** An outgoing mail to this many recipients (or more) counts as sent to many. */
export const FAN_OUT_RECIPIENTS = 5;
/** A reply-all to a huge list must not turn it into ticket participants. */
export const MAX_NEW_PARTICIPANTS = 20;
/** Bounds on what one mail can make us look up (10,000 recipients or references must not mean 10,000 queries). */
export const MAX_LOOKED_UP_IDS = 200;
export const MAX_TOKENS_TRIED = 5;
export const MAX_ADDRESSES_CHECKED = 200;
const THREAD_INDEX_HEADER = 22;
const REPLY_LOCAL = "reply";

// ---------- normalisation ----------

export function normalizeAddress(address: string | null | undefined): string {
  if (!address) return "";
  const a = address.trim();
  const angle = /<([^<>]*)>/.exec(a);
  return (angle ? angle[1] : a).trim().toLowerCase();
}

export function normalizeMessageId(raw: string | null | undefined): string {
  if (!raw) return "";
  const id = raw.trim().replace(/^<+/, "").replace(/>+$/, "").trim();
  const at = id.lastIndexOf("@");
  return at < 0 ? id : id.slice(0, at) + "@" + id.slice(at + 1).toLowerCase();
}

/** Splits a References / In-Reply-To header into normalised ids (oldest first). */
export function parseMessageIdList(header: string | string[] | null | undefined): string[] {
  if (!header) return [];
  const text = Array.isArray(header) ? header.join(" ") : header;
  const bracketed = text.match(/<[^<>\s]+>/g);
  const parts = bracketed ?? text.split(/[\s,]+/);
  return parts.map(normalizeMessageId).filter(Boolean);
}

// ---------- reply token ----------

export function replyAddress(mailbox: string, token: string): string {
  const domain = normalizeAddress(mailbox).split("@")[1];
  if (!domain) throw new Error(`not a mail address: ${mailbox}`);
  if (!/^[a-z0-9_-]{6,64}$/i.test(token)) throw new Error("reply token must be 6-64 letters, digits, '-' or '_'");
  return `${REPLY_LOCAL}+${token.toLowerCase()}@${domain}`;
}

/** The token of one of our reply+<token>@domain addresses; tokens are case-insensitive since some relays fold case. */
export function tokenFromAddress(address: string): string | null {
  const m = /^reply\+([a-z0-9_-]{6,64})@[^@\s]+$/.exec(normalizeAddress(address));
  return m ? m[1] : null;
}

// ---------- subject ----------

// Outermost-first prefixes that mail clients put before a subject, in many languages.
const REPLY_PREFIXES = [
  "re",
  "aw",
  "antw",
  "antwort",
  "sv",
  "vs",
  "odp",
  "res",
  "rif",
  "r",
  "ref",
  "ynt",
  "atb",
  "vá",
  "отв",
  "ответ",
  "回复",
  "答复",
  "回覆",
  "返信",
  "σχετ",
  "απ",
];
const FORWARD_PREFIXES = ["fwd", "fw", "wg", "tr", "rv", "enc", "doorst", "vb", "vl", "pd", "ilt", "пересл", "转发", "轉寄", "転送", "προώθ"];
const PREFIX_RE = new RegExp(`^\\s*(${[...REPLY_PREFIXES, ...FORWARD_PREFIXES].map(escapeRe).join("|")})\\s*(\\[\\d+\\]|\\(\\d+\\))?\\s*[:：]\\s*`, "iu");

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The leading Re:/Fwd:/AW:/WG:/TR:/RV:... prefixes, outermost first, lower-cased. */
export function subjectPrefixes(subject: string): { prefixes: string[]; rest: string } {
  const prefixes: string[] = [];
  let rest = subject ?? "";
  for (let m = PREFIX_RE.exec(rest); m; m = PREFIX_RE.exec(rest)) {
    prefixes.push(m[1].toLowerCase());
    rest = rest.slice(m[0].length);
  }
  return { prefixes, rest: rest.trim() };
}

export function isForwardSubject(subject: string): boolean {
  // only the outermost prefix counts: "Re: Fwd:" is a reply to a forward
  const { prefixes } = subjectPrefixes(subject);
  return prefixes.length > 0 && FORWARD_PREFIXES.includes(prefixes[0]);
}

const NUMBER_RES = [/\[#\s*(\d{3,12})\]/, /\bticket\s*#\s*(\d{3,12})\b/i];

export function ticketNumberFromSubject(subject: string): string | null {
  for (const re of NUMBER_RES) {
    const m = re.exec(subject ?? "");
    if (m) return m[1];
  }
  return null;
}

/** "[#123456] subject": reply/forward prefixes and earlier copies of the tag are removed, so the tag is never doubled. */
export function subjectWithTicketNumber(subject: string, number: number | string, opts: { reply?: boolean } = {}): string {
  const n = String(number);
  let rest = subjectPrefixes(subject ?? "").rest;
  const tag = new RegExp(`\\s*(\\[#\\s*${n}\\]|\\bticket\\s*#\\s*${n}\\b)\\s*`, "gi");
  // prefixes can sit after the tag too ("[#1] Re: x"), so strip both until stable
  for (let prev = ""; prev !== rest;) {
    prev = rest;
    rest = subjectPrefixes(rest.replace(tag, " ").replace(/\s+/g, " ").trim()).rest;
  }
  const body = rest || "(no subject)";
  return `${opts.reply ? "Re: " : ""}[#${n}] ${body}`;
}

// ---------- auto-replies and bounces ----------

const OOF_SUBJECTS = [
  /^(auto(matic|matische|matisk|matico|matique)?[\s-]*(reply|response|antwort|svar|respuesta|risposta|réponse|resposta|antwoord))\b/i,
  /^auto:/i,
  /^autoreply\b/i,
  /^(out of (the )?office|ooo\b|away from (the )?office)/i,
  /\bout of (the )?office\b.*\b(reply|until|returning)\b/i,
  /^(abwesenheitsnotiz|abwesend|automatische antwort)/i,
  /^(réponse automatique|absence du bureau|absent du bureau|message d'absence)/i,
  /^(respuesta automática|fuera de la oficina|ausente)/i,
  /^(risposta automatica|fuori sede|fuori ufficio)/i,
  /^(automatisch antwoord|afwezig)/i,
  /^(resposta automática|fora do escritório)/i,
  /^(autosvar|frånvaro|fravær)/i,
  /^(automaattinen vastaus|poissa)/i,
  /^(odpowiedź automatyczna|nieobecność)/i,
  /^(автоматический ответ|автоответ)/i,
  /^(自动回复|自動回覆|自動応答|自動返信)/u,
  /^(undeliverable|undelivered mail returned to sender|delivery status notification|mail delivery failed|returned mail|delivery failure|failure notice|nicht zustellbar|unzustellbar|non remis|non distribuable)\b/i,
];

export interface AutoVerdict {
  auto: boolean;
  /** Bounces and auto-replies; lists and bulk mail are never answered either. */
  noAutoReply: boolean;
  why: string[];
}

export function classifyAuto(mail: InboundMail): AutoVerdict {
  const why: string[] = [];
  const h = (v: string | null | undefined) => (v ?? "").trim().toLowerCase();
  const autoSubmitted = h(mail.autoSubmitted);
  if (autoSubmitted && autoSubmitted !== "no") why.push(`Auto-Submitted: ${autoSubmitted}`);
  const precedence = h(mail.precedence);
  if (["bulk", "junk", "auto_reply", "auto-reply"].includes(precedence)) why.push(`Precedence: ${precedence}`);
  if (h(mail.xAutoreply)) why.push("X-Autoreply");
  if (h(mail.xAutorespond)) why.push("X-Autorespond");
  const suppress = h(mail.xAutoResponseSuppress)
    .split(/[\s,]+/)
    .filter(Boolean);
  if (suppress.includes("all") || suppress.includes("oof")) why.push(`X-Auto-Response-Suppress: ${h(mail.xAutoResponseSuppress)}`);
  const ct = h(mail.contentType);
  if (ct.startsWith("multipart/report")) why.push("multipart/report");
  if (mail.returnPath != null && /^<?\s*>?$/.test(mail.returnPath.trim())) why.push("Return-Path <>");
  const local = normalizeAddress(mail.from.address).split("@")[0];
  if (/^(mailer-daemon|postmaster)$/.test(local)) why.push(`From ${local}`);
  const subject = subjectPrefixes(mail.subject ?? "").rest;
  if (OOF_SUBJECTS.some((re) => re.test(subject) || re.test(mail.subject ?? ""))) why.push("auto-reply subject");
  const auto = why.length > 0;
  // List-Id / Precedence: list mark a person's mail relayed by a list (Google Groups relays every customer mail that
  // way), so it threads like any mail; but answering it would mail the whole list (FreeScout #4363 loop)
  const noAutoReply = auto || !!h(mail.listId) || precedence === "list";
  return { auto, noAutoReply, why };
}

// ---------- Outlook Thread-Index ----------

/** The 22-byte conversation root of a Thread-Index, as base64; null when the header is not a valid Thread-Index. */
export function threadIndexRoot(threadIndex: string | null | undefined): string | null {
  if (!threadIndex) return null;
  const clean = threadIndex.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(clean)) return null;
  const bytes = Buffer.from(clean, "base64");
  if (bytes.length < THREAD_INDEX_HEADER || (bytes.length - THREAD_INDEX_HEADER) % 5 !== 0) return null;
  return bytes.subarray(0, THREAD_INDEX_HEADER).toString("base64");
}

const FILETIME_EPOCH_OFFSET_MS = 11644473600000n;

function filetime(date: Date): bigint {
  return (BigInt(date.getTime()) + FILETIME_EPOCH_OFFSET_MS) * 10000n;
}

/**
 * A Thread-Index for our outgoing mail. Without a parent: a new conversation (6 bytes of FILETIME, top 48 bits, then a
 * 16-byte GUID). With the customer's Thread-Index: the parent plus one 5-byte child block (time delta and a random
 * nibble), so Outlook keeps our reply in the customer's conversation.
 */
export function threadIndexFor(parentThreadIndex?: string | null, now: Date = new Date(), random: (n: number) => Buffer = randomBytes): string {
  const parent = parentThreadIndex ? Buffer.from(parentThreadIndex.replace(/\s+/g, ""), "base64") : null;
  const time = filetime(now);
  if (!parent || threadIndexRoot(parentThreadIndex) === null) {
    const header = Buffer.alloc(THREAD_INDEX_HEADER);
    header.writeUIntBE(Number(time >> 16n), 0, 6);
    random(16).copy(header, 6);
    return header.toString("base64");
  }
  const parentTime = BigInt(parent.readUIntBE(0, 6)) << 16n;
  let delta = time - parentTime;
  if (delta < 0n) delta = 0n;
  // MS-OXOMSG 2.2.1.3: code bit 0 keeps delta bits 18..48, code bit 1 (for deltas of years) keeps bits 23..53
  const block = delta < 1n << 49n ? Number((delta >> 18n) & 0x7fffffffn) : Number(((delta >> 23n) & 0x7fffffffn) | 0x80000000n);
  const child = Buffer.alloc(5);
  child.writeUInt32BE(block >>> 0, 0);
  child[4] = random(1)[0];
  return Buffer.concat([parent, child]).toString("base64");
}

// ---------- the decision ----------

interface Ctx {
  mail: InboundMail;
  lookup: ThreadingLookup;
  sender: string;
  ours: Set<string>;
  replyDomains: Set<string>;
  senderIsAgent: boolean;
  flags: Flags;
  agentCache: Map<string, boolean>;
}

function knownOn(ticket: TicketRef, address: string): boolean {
  const a = normalizeAddress(address);
  return ticket.customerAddresses.some((c) => normalizeAddress(c) === a) || ticket.participantAddresses.some((p) => normalizeAddress(p) === a);
}

function isOurs(ctx: Ctx, address: string, ticket?: TicketRef): boolean {
  const a = normalizeAddress(address);
  if (ctx.ours.has(a) || (ticket && normalizeAddress(ticket.mailboxAddress) === a)) return true;
  return tokenFromAddress(a) !== null && ctx.replyDomains.has(a.split("@")[1]);
}

async function isAgent(ctx: Ctx, address: string): Promise<boolean> {
  const a = normalizeAddress(address);
  let v = ctx.agentCache.get(a);
  if (v === undefined) {
    v = await ctx.lookup.isAgentAddress(a);
    ctx.agentCache.set(a, v);
  }
  return v;
}

/** Sender belongs on the ticket: its customer, a participant, or a real (authenticated) agent. */
function senderKnown(ctx: Ctx, ticket: TicketRef): boolean {
  if (ctx.flags.spoofedAgent) return false;
  return ctx.senderIsAgent || knownOn(ticket, ctx.sender);
}

function recipients(mail: InboundMail): string[] {
  return [...mail.to, ...mail.cc].map((a) => normalizeAddress(a.address)).filter(Boolean);
}

/** The mail also goes to someone already on the ticket: a reply-all inside the conversation, not a private copy. */
function replyAllOn(ctx: Ctx, ticket: TicketRef): boolean {
  return recipients(ctx.mail).some((r) => r !== ctx.sender && knownOn(ticket, r));
}

async function newParticipants(ctx: Ctx, ticket: TicketRef): Promise<string[]> {
  if (ctx.flags.auto || ctx.flags.spoofedAgent) return [];
  const out: string[] = [];
  // To may hold an alias that forwards to us; Cc is where customers add the people who should follow
  const consider = [ctx.sender, ...ctx.mail.cc.map((c) => normalizeAddress(c.address))];
  for (const a of consider.slice(0, MAX_ADDRESSES_CHECKED)) {
    if (out.length >= MAX_NEW_PARTICIPANTS) break;
    if (!a || out.includes(a) || isOurs(ctx, a, ticket) || knownOn(ticket, a)) continue;
    if (await isAgent(ctx, a)) continue;
    out.push(a);
  }
  return out;
}

/** A forward (outermost prefix Fwd:/WG:/TR:/RV:...) addressed To someone new: that person starts their own conversation. */
async function forwardToNewRecipient(ctx: Ctx, ticket: TicketRef): Promise<string | null> {
  if (!isForwardSubject(ctx.mail.subject)) return null;
  for (const t of ctx.mail.to.slice(0, MAX_ADDRESSES_CHECKED)) {
    const a = normalizeAddress(t.address);
    if (!a || a === ctx.sender || isOurs(ctx, a, ticket) || knownOn(ticket, a)) continue;
    if (await isAgent(ctx, a)) continue;
    return a;
  }
  return null;
}

async function append(ctx: Ctx, ticket: TicketRef, matchedBy: MatchedBy): Promise<ThreadingDecision> {
  const fwd = await forwardToNewRecipient(ctx, ticket);
  if (fwd) return { action: "new", reason: `forward of ticket #${ticket.number} to a new recipient (${fwd})`, ...ctx.flags };
  return { action: "append", ticketId: ticket.id, matchedBy, addParticipants: await newParticipants(ctx, ticket), ...ctx.flags };
}

function isFanOut(m: StoredMessage, ticketsForId: number): boolean {
  return m.bulk === true || ticketsForId > 1 || (m.direction === "out" && (m.recipientCount ?? 1) >= FAN_OUT_RECIPIENTS);
}

export async function decideThreading(mail: InboundMail, lookup: ThreadingLookup, options: ThreadingOptions): Promise<ThreadingDecision> {
  const sender = normalizeAddress(mail.from?.address);
  const ours = new Set(options.mailboxAddresses.map(normalizeAddress));
  const replyDomains = new Set([...ours].map((a) => a.split("@")[1]).filter(Boolean));
  const agentCache = new Map<string, boolean>();
  const ctx: Ctx = {
    mail,
    lookup,
    sender,
    ours,
    replyDomains,
    senderIsAgent: false,
    agentCache,
    flags: { auto: false, noAutoReply: false, spoofedAgent: false },
  };

  const verdict = classifyAuto(mail);
  const fromUs = isOurs(ctx, sender);
  const agent = sender ? await isAgent(ctx, sender) : false;
  const spoofedAgent = (agent || fromUs) && !mail.authenticated;
  // an authenticated mail from our own mailbox is ours (an agent writing from the shared mailbox, or our mail looping back)
  ctx.senderIsAgent = (agent || fromUs) && !spoofedAgent;
  ctx.flags = { auto: verdict.auto, noAutoReply: verdict.noAutoReply || fromUs || spoofedAgent, spoofedAgent };

  // 1. our reply token in a recipient address; an unknown token falls through
  const tried = new Set<string>();
  for (const a of [...mail.deliveredTo, ...mail.to.map((t) => t.address), ...mail.cc.map((c) => c.address)]) {
    const token = tokenFromAddress(a);
    if (!token || tried.has(token)) continue;
    if (tried.size >= MAX_TOKENS_TRIED) break;
    tried.add(token);
    const ticket = await lookup.ticketByReplyToken(token);
    if (ticket) return append(ctx, ticket, "token");
  }

  // 2. Message-IDs: the mail itself (a second copy), the DSN's original, In-Reply-To, then References newest first
  const ids: string[] = [];
  for (const id of [mail.messageId, mail.reportedMessageId, mail.inReplyTo, ...[...mail.references].reverse()]) {
    const n = normalizeMessageId(id);
    if (n && !ids.includes(n)) ids.push(n);
    if (ids.length >= MAX_LOOKED_UP_IDS) break;
  }
  let fanOutSkipped: StoredMessage | null = null;
  if (ids.length) {
    const stored = await lookup.ticketsByMessageIds(ids);
    const own = normalizeMessageId(mail.messageId);
    for (const id of ids) {
      const rows = stored.filter((s) => normalizeMessageId(s.messageId) === id);
      // the mail's own id only identifies a second copy from the same sender; a reused id from someone else proves nothing
      if (id === own && id !== normalizeMessageId(mail.inReplyTo) && !mail.references.map(normalizeMessageId).includes(id)) {
        const same = rows.find((r) => senderKnown(ctx, r.ticket));
        if (same) return append(ctx, same.ticket, "message-id");
        continue;
      }
      const ticketIds = new Set(rows.map((r) => String(r.ticket.id)));
      // shared ancestor: the ticket the sender belongs to wins
      const mine = rows.find((r) => senderKnown(ctx, r.ticket));
      if (mine) return append(ctx, mine.ticket, "message-id");
      const row = rows[0];
      if (!row) continue;
      // a bounce of a bulk mail still belongs to the one ticket that sent it
      if (ctx.flags.auto ? ticketIds.size > 1 : isFanOut(row, ticketIds.size)) {
        fanOutSkipped ??= row;
        continue;
      }
      // a stranger on a one-to-one thread: a CC'd or forwarded-to person joins (auto mail is stored, never joins)
      return append(ctx, row.ticket, "message-id");
    }
  }

  // 3. Outlook's Thread-Index root: a stranger only joins by reply-all, since a BCC'd mass mail shares one root
  const root = threadIndexRoot(mail.threadIndex);
  if (root) {
    const ticket = await lookup.ticketByThreadIndex(root);
    if (ticket && (senderKnown(ctx, ticket) || ctx.flags.auto || replyAllOn(ctx, ticket))) return append(ctx, ticket, "thread-index");
  }

  // 4. ticket number in the subject, only from someone already on that ticket
  const number = ticketNumberFromSubject(mail.subject);
  let numberRefused: string | null = null;
  if (number) {
    const ticket = await lookup.ticketByNumber(number);
    if (ticket && senderKnown(ctx, ticket)) return append(ctx, ticket, "subject-number");
    if (ticket) numberRefused = String(ticket.number);
  }

  const reason = fanOutSkipped
    ? `reply to a mail sent to many (ticket #${fanOutSkipped.ticket.number}) from ${sender}, who is not on that ticket`
    : numberRefused
      ? `ticket number #${numberRefused} in the subject, but ${sender} is not on that ticket`
      : "no reply token, known Message-ID, Thread-Index or ticket number";
  return { action: "new", reason, ...ctx.flags };
}
