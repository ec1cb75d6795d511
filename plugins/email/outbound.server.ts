// Agent replies as mail (the EMAIL adapter's send; issue 14, item 4). Built in issue 14 (helper "mailout").
//
// One reply = one mail: its text (text/html messages get an HTML part and a text version), its files as attachments,
// threaded into the customer's conversation (In-Reply-To/References of the latest inbound mail, Outlook's Thread-Index,
// "Re: [#n] subject") with our reply+<token>@ address as Reply-To, so answers come back even when clients rewrite ids.
//
// The outgoing mail is recorded in email_messages (direction "out") before it leaves, so a customer's quick answer
// threads even while a send is retried; a retry reuses that row's headers, so every attempt is the same mail (same
// Message-ID, same Thread-Index) and a copy that did go out is recognisable as such.
import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import nodemailer from "nodemailer";
import MailComposer from "nodemailer/lib/mail-composer";
import type Mail from "nodemailer/lib/mailer";
import type SMTPTransport from "nodemailer/lib/smtp-transport";
import sanitizeHtml from "sanitize-html";
import { and, desc, eq, inArray } from "drizzle-orm";
import { getDb } from "@db/client";
import { PermanentFailure, WaitAndRetry } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { DELIVERY_ERRORS } from "~/conversation/delivery";
import { isTicked, type ChannelAccount, type OutboundMessage } from "@plugins/channels/adapter";
import { normalizeAddress, normalizeMessageId, replyAddress, subjectWithTicketNumber, threadIndexFor, threadIndexRoot, tokenFromAddress } from "./threading";

/** The problems this file raises itself, as "<code>" or "<code>: <detail>" (the server's own text is passed on as it is). */
const OUT_ERRORS = DELIVERY_ERRORS;

/** References kept on a reply: the first (the conversation's root) and the newest, as mail clients trim them. */
export const MAX_REFERENCES = 20;
const TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };
const ADDRESS = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/;

// what an agent's HTML reply may carry in a mail (no scripts, styles, frames or forms)
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: sanitizeHtml.defaults.allowedTags.filter((t) => t !== "iframe"),
  allowedAttributes: { a: ["href", "title"], img: ["src", "alt"], td: ["colspan", "rowspan"], th: ["colspan", "rowspan"] },
  allowedSchemes: ["http", "https", "mailto", "cid"],
};

// ---------- transport ----------

type TransportOptions = SMTPTransport.Options | string;

/** The account's own SMTP server when it has one, else SMTP_RELAY_URL; null when neither is set. */
function transportOptions(account: ChannelAccount): SMTPTransport.Options | null {
  const c = account.config ?? {};
  const host = (c.smtpHost ?? "").trim();
  if (host) {
    const secure = isTicked(c.smtpSecure);
    const port = Number(c.smtpPort) || (secure ? 465 : 587);
    const user = (c.smtpUser ?? "").trim();
    return { host, port, secure, ...(user ? { auth: { user, pass: account.secrets?.smtpPassword ?? "" } } : {}), ...TIMEOUTS };
  }
  const url = (process.env.SMTP_RELAY_URL ?? "").trim();
  return url ? { url, ...TIMEOUTS } : null;
}

function createTransport(account: ChannelAccount) {
  const options: TransportOptions | null = transportOptions(account);
  // a transport per send: replies are few per minute, and a changed password or relay applies at once
  return options ? nodemailer.createTransport(options) : null;
}

// ---------- what goes out ----------

type Address = { name: string; address: string };

interface Headers {
  messageId: string;
  inReplyTo: string | null;
  references: string[];
  threadIndex: string;
  subject: string;
  to: Address[];
  cc: Address[];
}

const domainOf = (address: string) => normalizeAddress(address).split("@")[1] ?? "";

/** The same reply keeps the same Message-ID across retries and nodes (its first message's id and creation time). */
export function replyMessageId(ticketId: number, firstMessageId: number, createdAt: number, domain: string): string {
  const hash = createHash("sha256").update(`omnidesk-reply:${ticketId}:${firstMessageId}:${createdAt}`).digest("hex").slice(0, 24);
  return `${hash}.${firstMessageId}@${domain}`;
}

function parseList(json: string): Address[] {
  try {
    const v = JSON.parse(json || "[]");
    return Array.isArray(v) ? v.filter((a) => a && typeof a.address === "string").map((a) => ({ name: String(a.name ?? ""), address: a.address })) : [];
  } catch {
    return [];
  }
}

/** "Name <a@b>" or "a@b" as given by the agent. */
function parseGiven(value: string): Address {
  const m = /^\s*"?([^"<]*?)"?\s*<([^<>]+)>\s*$/.exec(value);
  return m ? { name: m[1].trim(), address: normalizeAddress(m[2]) } : { name: "", address: normalizeAddress(value) };
}

/** The ticket's reply token (email_threads), created once; two senders racing both end with the stored one. */
async function replyToken(ticketId: number, accountId: number): Promise<string> {
  const { db, schema } = getDb();
  const t = schema.emailThreads;
  const read = async () => (await db.select({ token: t.replyToken }).from(t).where(eq(t.ticketId, ticketId)))[0]?.token;
  const existing = await read();
  if (existing) return existing;
  // lower-case: relays may fold an address's case, and tokens are matched case-insensitively
  await db
    .insert(t)
    .values({ ticketId, accountId, replyToken: randomBytes(12).toString("hex"), createdAt: Date.now() })
    .onConflictDoNothing();
  const token = await read();
  if (!token) throw new Error(`no reply token for ticket ${ticketId}`);
  return token;
}

/** Addresses that are ours: every mailbox of ours and reply+<token>@ at their domains. */
async function ourAddresses(account: ChannelAccount): Promise<(address: string) => boolean> {
  const { db, schema } = getDb();
  const rows = await db.select({ address: schema.channelAccounts.address }).from(schema.channelAccounts);
  const ours = new Set([account.address, ...rows.map((r) => r.address)].map(normalizeAddress).filter(Boolean));
  const domains = new Set([...ours].map(domainOf));
  return (a) => ours.has(a) || (tokenFromAddress(a) !== null && domains.has(domainOf(a)));
}

/** Computes the headers of a new reply: recipients, subject and threading from the ticket's stored mails. */
async function newHeaders(message: OutboundMessage, account: ChannelAccount, createdAt: number): Promise<Headers> {
  const { db, schema } = getDb();
  const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, message.ticketId));
  if (!ticket) throw new PermanentFailure(`ticket ${message.ticketId} not found`);
  const em = schema.emailMessages;
  const latest = (direction: "in" | "out") =>
    db
      .select()
      .from(em)
      .where(and(eq(em.ticketId, ticket.id), eq(em.direction, direction)))
      .orderBy(desc(em.createdAt), desc(em.messageId))
      .limit(1);
  const [lastIn] = await latest("in");
  const [lastOut] = await latest("out");
  // answer the customer's latest mail; with none yet (we wrote first), follow our own previous mail
  const parent = lastIn ?? lastOut;
  const withIndex = [lastIn, lastOut].filter((m) => m?.threadIndex && threadIndexRoot(m.threadIndex)).sort((a, b) => b!.createdAt - a!.createdAt)[0];

  let references: string[] = [];
  if (parent) {
    const chain = [...parent.references.split(/\s+/).map(normalizeMessageId).filter(Boolean), parent.internetMessageId];
    const unique = chain.filter((id, i) => chain.indexOf(id) === i);
    references = unique.length > MAX_REFERENCES ? [unique[0], ...unique.slice(-(MAX_REFERENCES - 1))] : unique;
  }

  const isOurs = await ourAddresses(account);
  const participants = await db
    .select()
    .from(schema.emailParticipants)
    .where(eq(schema.emailParticipants.ticketId, ticket.id))
    .orderBy(schema.emailParticipants.addedAt);
  const seen = new Set<string>();
  const pick = (list: Address[]) => {
    const out: Address[] = [];
    for (const a of list) {
      const address = normalizeAddress(a.address);
      if (!address || seen.has(address) || isOurs(address)) continue;
      if (!ADDRESS.test(address)) throw new PermanentFailure(`${OUT_ERRORS.badAddress}: ${address}`);
      seen.add(address);
      out.push({ name: a.name, address });
    }
    return out;
  };
  let to = pick([
    ...(ticket.contactEmail ? [{ name: ticket.contactName, address: ticket.contactEmail }] : []),
    ...message.to.filter((s) => s.trim()).map(parseGiven),
  ]);
  let cc = pick([...participants.map((p) => ({ name: p.name, address: p.address })), ...message.cc.filter((s) => s.trim()).map(parseGiven)]);
  if (!to.length) [to, cc] = [cc, []];
  if (!to.length) throw new PermanentFailure(OUT_ERRORS.noRecipient);

  return {
    messageId: replyMessageId(ticket.id, message.messageIds[0], createdAt, domainOf(account.address) || "omnidesk.invalid"),
    inReplyTo: parent?.internetMessageId ?? null,
    references,
    threadIndex: threadIndexFor(withIndex?.threadIndex ?? null),
    subject: subjectWithTicketNumber(lastIn?.subject || ticket.title, ticket.ticketNumber, { reply: true }),
    to,
    cc,
  };
}

/**
 * The reply's headers: those recorded by an earlier attempt, else new ones recorded now (before anything is sent,
 * so an answer that arrives while the send is retried still threads by this Message-ID).
 */
async function replyHeaders(message: OutboundMessage, account: ChannelAccount, createdAt: number): Promise<Headers> {
  const { db, schema } = getDb();
  const em = schema.emailMessages;
  const first = message.messageIds[0];
  const stored = async () => (await db.select().from(em).where(eq(em.messageId, first)))[0];
  let row = await stored();
  if (!row) {
    const h = await newHeaders(message, account, createdAt);
    await db
      .insert(em)
      .values({
        messageId: first,
        ticketId: message.ticketId,
        accountId: account.id,
        direction: "out",
        internetMessageId: normalizeMessageId(h.messageId),
        inReplyTo: h.inReplyTo,
        references: h.references.join(" "),
        threadIndex: h.threadIndex,
        threadIndexRoot: threadIndexRoot(h.threadIndex),
        subject: h.subject,
        fromAddress: normalizeAddress(account.address),
        fromName: fromName(account),
        to: JSON.stringify(h.to),
        cc: JSON.stringify(h.cc),
        recipientCount: h.to.length + h.cc.length,
        createdAt: Date.now(),
      })
      .onConflictDoNothing();
    row = await stored();
    if (!row) throw new Error(`reply ${first} was not recorded`);
  }
  if (row.direction !== "out" || row.ticketId !== message.ticketId) throw new PermanentFailure(`message ${first} is not a reply of ticket ${message.ticketId}`);
  return {
    messageId: row.internetMessageId,
    inReplyTo: row.inReplyTo,
    references: row.references.split(/\s+/).filter(Boolean),
    threadIndex: row.threadIndex ?? threadIndexFor(null),
    subject: row.subject,
    to: parseList(row.to),
    cc: parseList(row.cc),
  };
}

const fromName = (account: ChannelAccount) => (account.config?.fromName ?? "").trim() || account.name;

/** Plain text of an HTML reply: block ends become line breaks, links keep their address. */
export function htmlToText(html: string): string {
  const clean = sanitizeHtml(html, SANITIZE);
  const text = clean
    .replace(/<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, (_m, href: string, label: string) => {
      const l = label.replace(/<[^>]*>/g, "").trim();
      return href && href !== l && !href.startsWith("mailto:") ? `${l} (${href})` : l;
    })
    .replace(/<br\s*\/?>/gi, "\n")
    .replace(/<li[^>]*>/gi, "- ")
    .replace(/<\/(p|div|h[1-6]|li|tr|blockquote|pre|ul|ol|table)>/gi, "\n")
    .replace(/<\/t[dh]>/gi, "\t")
    .replace(/<[^>]*>/g, "");
  return decodeEntities(text)
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

function decodeEntities(s: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
    }
    return named[e.toLowerCase()] ?? m;
  });
}

/** The mail as nodemailer options (attachments as streams from storage), with its recipients. */
async function buildMail(message: OutboundMessage, account: ChannelAccount) {
  if (!message.messageIds.length) throw new PermanentFailure("nothing to send");
  const { db, schema } = getDb();
  const rows = await db
    .select()
    .from(schema.messages)
    .where(and(inArray(schema.messages.id, message.messageIds), eq(schema.messages.ticketId, message.ticketId)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const parts = message.messageIds.map((id) => byId.get(id)).filter((m) => m !== undefined);
  const first = byId.get(message.messageIds[0]);
  if (!first) throw new PermanentFailure(`message ${message.messageIds[0]} not found`);

  const h = await replyHeaders(message, account, first.createdAt);
  const token = await replyToken(message.ticketId, account.id);

  const texts: string[] = [];
  const htmls: string[] = [];
  const attachments: Mail.Attachment[] = [];
  for (const m of parts) {
    if (m.fileKey) {
      const stream = await fileStorage().get(m.fileKey);
      if (!stream) throw new PermanentFailure(`${OUT_ERRORS.attachmentMissing}: ${m.fileName ?? m.fileKey}`);
      attachments.push({
        filename: m.fileName || "attachment",
        contentType: m.fileType || (m.type.includes("/") && m.type !== "text/html" ? m.type : "application/octet-stream"),
        content: Readable.fromWeb(stream as import("node:stream/web").ReadableStream),
      });
    } else if (m.type === "text/html") {
      const safe = sanitizeHtml(m.body, SANITIZE);
      htmls.push(safe);
      texts.push(htmlToText(safe));
    } else if (m.type === "text") {
      texts.push(m.body);
      htmls.push(escapeHtml(m.body).replace(/\r?\n/g, "<br>\n"));
    }
  }
  const anyHtml = parts.some((m) => m.type === "text/html");
  const bracket = (id: string) => `<${id}>`;
  const options: Mail.Options = {
    from: { name: fromName(account), address: normalizeAddress(account.address) },
    replyTo: replyAddress(account.address, token),
    to: h.to,
    ...(h.cc.length ? { cc: h.cc } : {}),
    subject: h.subject,
    messageId: bracket(h.messageId),
    ...(h.inReplyTo ? { inReplyTo: bracket(h.inReplyTo) } : {}),
    ...(h.references.length ? { references: h.references.map(bracket) } : {}),
    headers: { "Thread-Index": h.threadIndex },
    // a text part always; an HTML part only when the agent wrote HTML
    text: texts.join("\n\n"),
    ...(anyHtml ? { html: htmls.join("\n<br>\n") } : {}),
    ...(attachments.length ? { attachments } : {}),
    envelope: { from: normalizeAddress(account.address), to: [...h.to, ...h.cc].map((a) => a.address) },
  };
  return { options, headers: h };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

// ---------- the adapter's functions ----------

/** The reply as a MIME message with its threading headers (also sent by the Graph adapter). Records it as sent mail. */
export async function composeReply(
  message: OutboundMessage,
  account: ChannelAccount,
): Promise<{ mime: Buffer; messageId: string; to: string[]; cc: string[] }> {
  const { options, headers } = await buildMail(message, account);
  const mime = await new MailComposer(options).compile().build();
  return { mime, messageId: `<${headers.messageId}>`, to: headers.to.map((a) => a.address), cc: headers.cc.map((a) => a.address) };
}

/** An SMTP failure as the queue should treat it: 5xx refusals are final, the rest is tried again later. */
function classify(error: unknown): Error {
  const e = error as Error & { responseCode?: number; response?: string; code?: string };
  const text = (e.response || e.message || String(error)).trim().slice(0, 1000);
  // a wrong password is fixed by an admin, then the waiting mail goes out: not the message's fault
  if (e.code === "EAUTH") return new Error(text);
  if (e.responseCode && e.responseCode >= 500 && e.responseCode < 600) return new PermanentFailure(text);
  return new Error(text);
}

/** Sends a reply over SMTP (the account's own server, else SMTP_RELAY_URL). */
export async function sendReplyMail(message: OutboundMessage, account: ChannelAccount): Promise<{ providerRef: string }> {
  const transport = createTransport(account);
  if (!transport) throw new WaitAndRetry(OUT_ERRORS.notConfigured);
  let built: Awaited<ReturnType<typeof buildMail>> | undefined;
  try {
    built = await buildMail(message, account);
    try {
      await transport.sendMail(built.options);
    } catch (error) {
      throw classify(error);
    }
    return { providerRef: `<${built.headers.messageId}>` };
  } finally {
    transport.close();
    // a refused mail leaves its attachment streams unread: close their files
    for (const a of built?.options.attachments ?? []) if (a.content instanceof Readable) a.content.destroy();
  }
}

/** Tries the account's SMTP server (or the relay): "not-configured" when there is none, else the server's text. */
export async function testSmtp(account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }> {
  const transport = createTransport(account);
  if (!transport) return { ok: false, error: OUT_ERRORS.notConfigured };
  try {
    await transport.verify();
    return { ok: true };
  } catch (error) {
    const e = error as Error & { response?: string };
    return { ok: false, error: (e.response || e.message || String(error)).trim().slice(0, 1000) };
  } finally {
    transport.close();
  }
}
