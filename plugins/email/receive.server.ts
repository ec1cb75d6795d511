// Inbound mail to message (the EMAIL and GRAPH_EMAIL adapters' receive). Issue 14.
//
// stored raw mail -> verdicts (SPF/DKIM/DMARC) -> stream-parse, attachments streamed to file storage
// -> threading decision against the database -> quoted history folded, HTML sanitised -> ONE
// transaction through conversation.receive (ticket, messages, email rows, event processed).
// File I/O and network happen before the transaction; if it fails, the stored files are removed.
import { randomBytes } from "node:crypto";
import { Readable, Transform } from "node:stream";
import { eq } from "drizzle-orm";
import { MailParser, type AttachmentStream, type HeaderLines, type Headers, type MessageText, type ParsedMail } from "mailparser";
import sanitizeHtml from "sanitize-html";
import { MESSAGE_HTML } from "~/conversation/html.server";
import { getDb } from "@db/client";
import { receive, TicketGone } from "~/conversation/receive.server";
import type { StoredFile } from "~/conversation/model.server";
import { fileStorage, TooLarge } from "~/storage.server";
import type { ChannelAccount, InboundEvent, ReceiveOutcome } from "@plugins/channels/adapter";
import { enabledAccounts } from "@plugins/channels/accounts.server";
import { markEventProcessed } from "@plugins/channels/inbound.server";
import { authenticateSmtp, authOff, isRelayAddress, verdictFromHeader, type AuthVerdict } from "./auth.server";
import { databaseLookup } from "./lookup.server";
import { mailMaxBytes } from "./store-mail.server";
import { inboundMailFromParsed } from "./parsed-mail";
import { foldQuoted } from "./quoted";
import { decideThreading, normalizeAddress, threadIndexRoot, type InboundMail, type MailAddress, type ThreadingDecision } from "./threading";

/** What of a mail's text and HTML is kept as the message. */
const MAX_HTML_CHARS = 2 * 1024 * 1024;
const MAX_TEXT_CHARS = 512 * 1024;
/** DSN parts are read into memory to find the original Message-ID; anything past this is dropped. */
const MAX_REPORT_BYTES = 256 * 1024;
/** Stored per message: the newest references and the first recipients (the count is kept whole). */
const MAX_STORED_REFERENCES = 100;
const MAX_STORED_RECIPIENTS = 100;

class Malformed extends Error {}

interface ParsedStream {
  headers: Headers;
  headerLines: HeaderLines;
  text: MessageText | null;
  files: (StoredFile & { contentId: string | null })[];
  reports: { contentType: string; content: Buffer }[];
}

const REPORT_TYPES = /^(message\/(rfc822|global|delivery-status)|text\/rfc822-headers|message\/global-headers)$/i;

async function readBounded(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size < max) chunks.push((chunk as Buffer).subarray(0, max - size));
    size += (chunk as Buffer).length;
  }
  return Buffer.concat(chunks);
}

/** Parses the mail as a stream: attachments go straight to file storage, memory stays flat. */
async function parseStream(raw: Readable): Promise<ParsedStream> {
  const storage = fileStorage();
  const out: ParsedStream = { headers: new Map() as Headers, headerLines: [], text: null, files: [], reports: [] };
  let size = 0;
  const limit = mailMaxBytes();
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      done(size > limit ? new TooLarge(limit) : null, chunk);
    },
  });
  const parser = new MailParser({ skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true, checksumAlgo: false });
  parser.on("headers", (h: Headers) => (out.headers = h));
  parser.on("headerLines", (l: HeaderLines) => (out.headerLines = l));
  let current: AttachmentStream | null = null;
  // a mail over the limit or unparseable mid-attachment: the attachment's stream fails too, so its store
  // stops; the stored raw stream is closed without an error (its file stream would throw it unheard)
  const fail = (error: Error) => {
    raw.unpipe(counter);
    raw.destroy();
    current?.content.destroy(error);
    parser.destroy(error);
  };
  raw.on("error", fail);
  counter.on("error", fail);
  parser.on("error", (error: Error) => current?.content.destroy(error));
  raw.pipe(counter).pipe(parser);
  try {
    for await (const data of parser as AsyncIterable<AttachmentStream | MessageText>) {
      if (data.type === "text") {
        out.text = data;
        continue;
      }
      current = data;
      // the parser may still report on a stream the store has given up on
      data.content.on("error", () => {});
      try {
        if (REPORT_TYPES.test(data.contentType)) {
          const content = await readBounded(data.content, MAX_REPORT_BYTES);
          out.reports.push({ contentType: data.contentType, content });
          const { key } = await storage.putStream(bufferStream(content));
          out.files.push({ key, name: data.filename || "report.txt", type: "text/plain", size: content.length, contentId: null });
        } else {
          // no limit of its own: a decoded attachment is smaller than the mail, which the counter bounds
          const { key, size: bytes } = await storage.putStream(data.content);
          out.files.push({ key, name: fileName(data), type: data.contentType || "application/octet-stream", size: bytes, contentId: cidOf(data.contentId) });
        }
      } finally {
        current = null;
        data.release?.();
      }
    }
  } catch (error) {
    await removeFiles(out.files);
    throw error;
  }
  return out;
}

const bufferStream = (b: Buffer): Readable => Readable.from([b]);

function fileName(a: AttachmentStream): string {
  const name = (a.filename ?? "").replace(/[\\/\0\r\n]+/g, "_").trim();
  if (name) return name.slice(0, 200);
  const ext = (a.contentType.split("/")[1] ?? "bin").replace(/[^a-z0-9.+-]/gi, "").slice(0, 10);
  return `attachment.${ext || "bin"}`;
}

const cidOf = (v: string | undefined | null) => (v ? v.trim().replace(/^<|>$/g, "").toLowerCase() : null);

async function removeFiles(files: { key: string }[]) {
  const storage = fileStorage();
  await Promise.all(files.map((f) => storage.remove(f.key).catch(() => {})));
}

/** What inboundMailFromParsed reads of a ParsedMail, from the streaming parser's headers. */
function asParsedMail(p: ParsedStream): ParsedMail {
  const h = p.headers;
  return {
    headers: h,
    headerLines: p.headerLines,
    subject: h.get("subject"),
    from: h.get("from"),
    to: h.get("to"),
    cc: h.get("cc"),
    replyTo: h.get("reply-to"),
    messageId: h.get("message-id"),
    inReplyTo: h.get("in-reply-to"),
    references: h.get("references"),
    date: h.get("date"),
    attachments: p.reports.map((r) => ({ contentType: r.contentType, content: r.content })),
  } as unknown as ParsedMail;
}

// ---------- body ----------

/** The page's rules, stricter: remote images (trackers) and data: URIs are dropped; inline cid: images are kept to be linked to their files. */
export const MAIL_SANITIZE: sanitizeHtml.IOptions = {
  ...MESSAGE_HTML,
  // an image left without a (cid:) source is a remote one: dropped, so opening the ticket tells no tracker
  exclusiveFilter: (frame) => frame.tag === "img" && !/^cid:/i.test(frame.attribs.src ?? ""),
};

// Where mail programs start the quoted history in HTML (Gmail, Apple Mail/Thunderbird, Outlook, Yahoo).
const HTML_QUOTE_STARTS = [
  /<div[^>]*class="?[^">]*gmail_quote/i,
  /<blockquote[^>]*type="?cite/i,
  /<div[^>]*id="?divRplyFwdMsg/i,
  /<div[^>]*id="?appendonsend/i,
  /<hr[^>]*id="?stopSpelling/i,
  /<div[^>]*class="?[^">]*yahoo_quoted/i,
  /<div[^>]*class="?moz-cite-prefix/i,
  /-----\s*Original Message\s*-----/i,
];

const QUOTE_FOLD = (quoted: string) => `<details class="quoted-history"><summary>…</summary>${quoted}</details>`;

function htmlToText(html: string): string {
  return sanitizeHtml(html, { allowedTags: [], allowedAttributes: {} })
    .replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}

/** The message: what is new visible, the quoted history in a <details> fold (works without JS). */
export function buildBody(text: MessageText | null): { type: "text" | "text/html"; body: string; quoted?: string; preview: string } {
  const html = typeof text?.html === "string" ? text.html.slice(0, MAX_HTML_CHARS) : "";
  const plain = (text?.text ?? "").slice(0, MAX_TEXT_CHARS);
  if (html.trim()) {
    let cut = -1;
    for (const re of HTML_QUOTE_STARTS) {
      const m = re.exec(html);
      if (m && m.index > 0 && (cut < 0 || m.index < cut)) cut = m.index;
    }
    const visible = sanitizeHtml(cut > 0 ? html.slice(0, cut) : html, MAIL_SANITIZE).trim();
    const quoted = cut > 0 ? sanitizeHtml(html.slice(cut), MAIL_SANITIZE).trim() : "";
    // a reply that is nothing but quote shows the quote
    if (!htmlToText(visible) && !/<img/i.test(visible))
      return { type: "text/html", body: quoted || visible, preview: htmlToText(quoted || visible).slice(0, 300) };
    return { type: "text/html", body: quoted ? visible + QUOTE_FOLD(quoted) : visible, preview: htmlToText(visible).slice(0, 300) };
  }
  // plain text stays plain: the quoted history is kept beside it (conversation.receive) and folded by the view
  const folded = foldQuoted(plain);
  return { type: "text", body: folded.visible, quoted: folded.quoted || undefined, preview: folded.visible.slice(0, 300) };
}

/** Inline images (src="cid:...") point at their stored file messages; an unknown cid is dropped. */
export function linkInlineImages(html: string, files: { contentId: string | null; name: string }[], fileMessageIds: number[]): string {
  return html.replace(/<img([^>]*?)\ssrc="cid:([^"]*)"([^>]*)>/gi, (_m, before: string, cid: string, after: string) => {
    const id = cid.replace(/&amp;/g, "&").trim().toLowerCase();
    const i = files.findIndex((f) => f.contentId === id);
    if (i < 0 || !fileMessageIds[i]) return `<img${before}${after}>`;
    return `<img${before} src="/files/v101/${fileMessageIds[i]}/${encodeURIComponent(files[i].name)}"${after}>`;
  });
}

// ---------- verdicts ----------

async function verdictOf(event: InboundEvent, from: string, headerLines: HeaderLines): Promise<AuthVerdict> {
  if (process.env.MAIL_AUTH === "off") return authOff();
  const meta = event.meta as { ip?: string; helo?: string; mailFrom?: string };
  if (event.source === "smtp" && meta.ip && !isRelayAddress(meta.ip))
    return authenticateSmtp(await event.raw(), { ip: meta.ip, helo: meta.helo, sender: meta.mailFrom || undefined, fromAddress: from });
  // IMAP, Graph, or a relay of ours handed it on: the receiving server's own header counts
  const topmost = headerLines.find((l) => l.key === "authentication-results");
  return verdictFromHeader(topmost ? topmost.line.slice(topmost.line.indexOf(":") + 1) : null);
}

// ---------- the adapter's receive ----------

const quarantined = (reason: string): ReceiveOutcome => ({ state: "quarantined", reason });

async function alreadyProcessed(eventId: number): Promise<ReceiveOutcome | null> {
  const { db, schema } = getDb();
  const [row] = await db.select().from(schema.inboundEvents).where(eq(schema.inboundEvents.id, eventId));
  if (row?.state === "processed" && row.ticketId) return { state: "processed", ticketId: row.ticketId, messageId: row.messageId };
  return null;
}

/** Our mailboxes: every enabled mail account's address, so none of them counts as a customer or a new recipient. */
async function mailboxAddresses(account: ChannelAccount): Promise<string[]> {
  const accounts = [...(await enabledAccounts("EMAIL")), ...(await enabledAccounts("GRAPH_EMAIL"))];
  return [...new Set([account.address, ...accounts.map((a) => a.address)].map(normalizeAddress).filter(Boolean))];
}

const newToken = () => randomBytes(15).toString("base64url").toLowerCase();

const addressesJson = (list: MailAddress[]) => JSON.stringify(list.slice(0, MAX_STORED_RECIPIENTS).map((a) => ({ address: a.address, name: a.name ?? "" })));

export async function receiveMail(event: InboundEvent, account: ChannelAccount | null): Promise<ReceiveOutcome> {
  const done = await alreadyProcessed(event.id);
  if (done) return done;
  if (!account) return quarantined("no channel account takes this mail");

  let parsed: ParsedStream;
  try {
    parsed = await parseStream(await event.raw());
  } catch (error) {
    if (error instanceof TooLarge) return quarantined(`mail larger than ${Math.round(mailMaxBytes() / 1024 / 1024)} MB`);
    return quarantined(`malformed mail: ${(error as Error).message || String(error)}`.slice(0, 500));
  }
  try {
    const rcptTo = ((event.meta as { rcptTo?: unknown }).rcptTo ?? []) as string[];
    const unchecked = inboundMailFromParsed(asParsedMail(parsed), {
      authenticated: false,
      envelopeRecipients: Array.isArray(rcptTo) ? rcptTo.map(String) : [],
    });
    const from = unchecked.from;
    if (!from.address || !from.address.includes("@")) throw new Malformed("no sender address (From)");
    const verdict = await verdictOf(event, from.address, parsed.headerLines);
    const mail: InboundMail = { ...unchecked, authenticated: verdict.authenticated };
    const ours = await mailboxAddresses(account);
    const decision = await decideThreading(mail, databaseLookup(mail.from.address), { mailboxAddresses: ours });

    // a second copy of a mail already stored (another event key, same Message-ID and sender): no second message
    const copy = await storedCopy(mail, decision);
    if (copy) {
      await removeFiles(parsed.files);
      await getDb().transaction((tx) => markEventProcessed(tx, event.id, copy));
      return { state: "processed", ...copy };
    }
    const outcome = await write(event, account, mail, decision, verdict, parsed, ours);
    return outcome;
  } catch (error) {
    await removeFiles(parsed.files);
    if (error instanceof Malformed) return quarantined(error.message);
    throw error;
  }
}

async function storedCopy(mail: InboundMail, decision: ThreadingDecision) {
  if (decision.action !== "append" || !mail.messageId) return null;
  const { db, schema } = getDb();
  const e = schema.emailMessages;
  const rows = await db
    .select({ messageId: e.messageId, ticketId: e.ticketId, fromAddress: e.fromAddress, direction: e.direction })
    .from(e)
    .where(eq(e.internetMessageId, mail.messageId))
    .limit(20);
  const same = rows.find(
    (r) => r.direction === "in" && r.fromAddress === normalizeAddress(mail.from.address) && String(r.ticketId) === String(decision.ticketId),
  );
  return same ? { ticketId: same.ticketId, messageId: same.messageId } : null;
}

async function write(
  event: InboundEvent,
  account: ChannelAccount,
  mail: InboundMail,
  decision: ThreadingDecision,
  verdict: AuthVerdict,
  parsed: ParsedStream,
  ours: string[],
): Promise<ReceiveOutcome> {
  const { schema } = getDb();
  const body = buildBody(parsed.text);
  const sender = normalizeAddress(mail.from.address);
  const senderName = (mail.from.name || sender).slice(0, 200);
  const files = parsed.files.map(({ contentId: _c, ...f }) => f);
  const recipients = [...mail.to, ...mail.cc];
  const receiverEmail = recipients.map((r) => normalizeAddress(r.address)).find((a) => ours.includes(a)) ?? normalizeAddress(account.address);
  const names = new Map<string, string>([
    [sender, mail.from.name ?? ""],
    ...mail.cc.map((c) => [normalizeAddress(c.address), c.name ?? ""] as [string, string]),
  ]);
  const at = Date.now();

  const run = (target: ThreadingDecision) =>
    receive({
      ticket:
        target.action === "append"
          ? { id: Number(target.ticketId) }
          : {
              channel: account.kind,
              title: (mail.subject || "(no subject)").slice(0, 250),
              contactName: senderName,
              contactEmail: sender,
              departmentId: account.departmentId,
              receiverEmail,
              channelAccountId: account.id,
            },
      message: { body: body.body, quoted: body.quoted, type: body.type, senderName, preview: body.preview || files[0]?.name || mail.subject },
      files,
      at,
      finishBody: body.type === "text/html" && /src="cid:/i.test(body.body) ? (fileIds) => linkInlineImages(body.body, parsed.files, fileIds) : undefined,
      async inTransaction(tx, { ticket, messageIds }) {
        const messageId = messageIds[0];
        await tx.insert(schema.emailMessages).values({
          messageId,
          ticketId: ticket.id,
          accountId: account.id,
          direction: "in",
          internetMessageId: mail.messageId,
          inReplyTo: mail.inReplyTo || null,
          references: mail.references.slice(-MAX_STORED_REFERENCES).join(" "),
          threadIndex: mail.threadIndex?.slice(0, 1000) || null,
          threadIndexRoot: threadIndexRoot(mail.threadIndex),
          subject: mail.subject.slice(0, 1000),
          fromAddress: sender,
          fromName: mail.from.name ?? "",
          to: addressesJson(mail.to),
          cc: addressesJson(mail.cc),
          recipientCount: recipients.length,
          bulk: false,
          auto: target.noAutoReply,
          auth: JSON.stringify({ ...verdict, spoofedAgent: target.spoofedAgent, auto: target.auto }),
          createdAt: at,
        });
        // every email ticket has a reply address; a ticket found by its number may not have one yet
        await tx
          .insert(schema.emailThreads)
          .values({ ticketId: ticket.id, accountId: account.id, replyToken: newToken(), createdAt: at })
          .onConflictDoNothing();
        const join = target.action === "append" ? target.addParticipants : [];
        if (join.length)
          await tx
            .insert(schema.emailParticipants)
            .values(join.map((address) => ({ ticketId: ticket.id, address, name: (names.get(address) ?? "").slice(0, 200), addedAt: at })))
            .onConflictDoNothing();
        await markEventProcessed(tx, event.id, { ticketId: ticket.id, messageId });
      },
    });

  let result;
  try {
    result = await run(decision);
  } catch (error) {
    // the ticket was deleted between the decision and the write: the mail starts a new one
    if (!(error instanceof TicketGone) || decision.action !== "append") throw error;
    result = await run({
      action: "new",
      reason: "its ticket was deleted",
      auto: decision.auto,
      noAutoReply: decision.noAutoReply,
      spoofedAgent: decision.spoofedAgent,
    });
  }
  return { state: "processed", ticketId: result.ticket.id, messageId: result.messageIds[0] };
}
