// Maps mailparser's ParsedMail onto the threading input; no I/O.
import type { AddressObject, ParsedMail } from "mailparser";
import { normalizeAddress, normalizeMessageId, parseMessageIdList, type InboundMail, type MailAddress } from "./threading";

function addresses(v: AddressObject | AddressObject[] | undefined): MailAddress[] {
  if (!v) return [];
  const out: MailAddress[] = [];
  for (const group of Array.isArray(v) ? v : [v]) {
    for (const a of group.value) {
      // a group ("undisclosed-recipients:;") nests its members
      for (const m of a.group ?? [a]) if (m.address) out.push({ address: normalizeAddress(m.address), name: m.name || undefined });
    }
  }
  return out;
}

function text(v: unknown): string | null {
  if (v == null) return null;
  if (typeof v === "string") return v;
  if (Array.isArray(v)) return v.map(text).join(", ");
  if (typeof v === "object" && "value" in (v as object)) {
    const value = (v as { value: unknown }).value;
    if (typeof value === "string") return value;
    if (Array.isArray(value)) return value.map((a: { address?: string }) => a.address ?? "").join(", ");
  }
  if (typeof v === "object" && "text" in (v as object)) return String((v as { text: unknown }).text);
  return String(v);
}

/** The original Message-ID inside a DSN (message/rfc822 or text/rfc822-headers part). */
function reportedMessageId(parsed: ParsedMail): string | null {
  for (const a of parsed.attachments ?? []) {
    if (!/^(message\/(rfc822|global)|text\/rfc822-headers|message\/global-headers)$/i.test(a.contentType)) continue;
    const head = a.content.toString("utf8", 0, Math.min(a.content.length, 64 * 1024));
    const m = /^message-id:\s*(<[^>\r\n]+>)/im.exec(head);
    if (m) return normalizeMessageId(m[1]);
  }
  return null;
}

export function inboundMailFromParsed(parsed: ParsedMail, extra: { authenticated: boolean; envelopeRecipients?: string[] }): InboundMail {
  const h = parsed.headers;
  const returnPath = h.get("return-path");
  const list = h.get("list") as { id?: { id?: string } } | undefined;
  const delivered = [h.get("delivered-to"), h.get("x-original-to")].flatMap((v) => (v ? (text(v) ?? "").split(/,\s*/) : []));
  const ct = h.get("content-type") as { value?: string } | string | undefined;
  return {
    messageId: normalizeMessageId(parsed.messageId),
    inReplyTo: parseMessageIdList(parsed.inReplyTo)[0] ?? null,
    references: parseMessageIdList(parsed.references),
    threadIndex: text(h.get("thread-index")),
    subject: parsed.subject ?? "",
    from: addresses(parsed.from)[0] ?? { address: "" },
    to: addresses(parsed.to),
    cc: addresses(parsed.cc),
    replyTo: addresses(parsed.replyTo),
    deliveredTo: [...delivered, ...(extra.envelopeRecipients ?? [])].map(normalizeAddress).filter(Boolean),
    autoSubmitted: text(h.get("auto-submitted")),
    precedence: text(h.get("precedence")),
    contentType: typeof ct === "string" ? ct : (ct?.value ?? null),
    xAutoResponseSuppress: text(h.get("x-auto-response-suppress")),
    xAutoreply: text(h.get("x-autoreply")),
    xAutorespond: text(h.get("x-autorespond")),
    listId: list?.id?.id ?? null,
    returnPath: returnPath === undefined ? null : (text(returnPath) ?? "").trim() || "<>",
    date: parsed.date ?? null,
    authenticated: extra.authenticated,
    reportedMessageId: reportedMessageId(parsed),
  };
}
