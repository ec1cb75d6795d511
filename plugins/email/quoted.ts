// Quoted history in a customer's reply ("On Monday, Ana wrote:", "-----Original Message-----",
// "> ..." and their translations) is folded away so the conversation shows what is new; the
// quoted part is kept beside it for "show the rest". email-reply-parser knows the quote headers
// of many mail programs and languages.
import EmailReplyParser from "email-reply-parser";

export type FoldedReply = { visible: string; quoted: string };

/** The new part of a plain-text reply and the history it quotes. */
export function foldQuoted(text: string): FoldedReply {
  const normalised = text.replace(/\r\n?/g, "\n");
  const email = new EmailReplyParser().read(normalised);
  const visible = email.getVisibleText().trim();
  // a mail that is all quote (a bare forward) keeps its text visible rather than showing nothing
  if (!visible) return { visible: normalised.trim(), quoted: "" };
  return { visible, quoted: email.getQuotedText().trim() };
}
