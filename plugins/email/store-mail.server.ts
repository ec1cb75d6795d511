// Stores a fetched mail (IMAP, Graph) as an inbound event without holding it in memory: the bytes
// stream into file storage while their sha256 is taken (the event key of a mail without a
// Message-ID), then the event is recorded. The caller moves its cursor only after this returns.
import { createHash } from "node:crypto";
import { Transform, type Readable } from "node:stream";
import { recordInboundEvent } from "@plugins/channels/inbound.server";
import { fileStorage } from "~/storage.server";
import { MAIL_PROVIDER, mailEventKey } from "./event-key";

/** The largest mail taken in, however it comes (MAIL_MAX_BYTES): a 50 MB attachment is about 68 MB encoded. */
export const DEFAULT_MAIL_MAX_BYTES = 75 * 1024 * 1024;
export const mailMaxBytes = () => (Number(process.env.MAIL_MAX_BYTES) > 0 ? Number(process.env.MAIL_MAX_BYTES) : DEFAULT_MAIL_MAX_BYTES);

export async function storeFetchedMail(input: {
  accountId: number;
  source: "imap" | "graph";
  messageId: string | null | undefined;
  content: Readable;
  meta: Record<string, unknown>;
}) {
  const hash = createHash("sha256");
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  input.content.on("error", (error) => hashing.destroy(error));
  const { key, size } = await fileStorage().putStream(input.content.pipe(hashing), { maxBytes: mailMaxBytes() });
  return recordInboundEvent({
    accountId: input.accountId,
    provider: MAIL_PROVIDER,
    eventKey: mailEventKey(input.messageId, hash.digest("hex")),
    source: input.source,
    meta: input.meta,
    rawKey: key,
    size,
  });
}

/**
 * A mail too large to fetch is still recorded (without bytes), so admins see it among the failed
 * events instead of it vanishing; its key is its Message-ID, else where it sat.
 */
export async function recordTooLarge(input: {
  accountId: number;
  source: "imap" | "graph";
  messageId: string | null | undefined;
  size: number;
  where: string;
  meta: Record<string, unknown>;
}) {
  return recordInboundEvent({
    accountId: input.accountId,
    provider: MAIL_PROVIDER,
    eventKey: mailEventKey(input.messageId, `too-large:${input.where}`),
    source: input.source,
    meta: { ...input.meta, tooLarge: true, size: input.size, maxBytes: mailMaxBytes() },
    rawKey: null,
    size: input.size,
  });
}
