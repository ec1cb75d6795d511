// A customer's file that would not download (the provider's file host down, a timeout) does not
// hold up their message: the text is written at once, marked "file could not be downloaded yet"
// (messages.file_state "pending"), and the media job, with the queue's usual backoff, fetches the
// file and sets it on that same message. Once the job gives up, the mark says the file could not be
// downloaded. The mark is cleared only by the transaction that sets the file, so a job run again
// (a restart, a lease run out) finds the work done and adds nothing.
import { and, eq } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { backoffMs, defineJobKind, enqueue } from "~/jobs/queue.server";
import { fileStorage } from "~/storage.server";
import { log } from "~/ops/log.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { toOpenPages } from "~/conversation/events.server";
import { fileMessage, type StoredFile } from "~/conversation/model.server";
import { RefusedFile } from "./media.server";
import { loadAccount } from "./accounts.server";
import { adapterFor } from "./adapters.server";
import type { ChannelAccount } from "./adapter";

export const MEDIA_JOB = "channels.media";

/** A file the provider holds for a customer's message. */
export interface MediaRef {
  id: string;
  mime?: string;
  name?: string;
}
type Download = (account: ChannelAccount, media: MediaRef) => Promise<{ bytes: Buffer; mime: string; name: string }>;

/**
 * Fetches the files and stores them: those that came, and those still to come (a failed download).
 * A file the provider would never hand over lawfully (off its file hosts, over its size) is left out.
 */
export async function fetchMedia(download: Download | undefined, account: ChannelAccount, media: MediaRef[]) {
  const files: StoredFile[] = [];
  const missing: MediaRef[] = [];
  if (!download) return { files, missing };
  for (const ref of media) {
    let got: Awaited<ReturnType<Download>>;
    try {
      got = await download(account, ref);
    } catch (error) {
      if (error instanceof RefusedFile) log.warn({ account: account.id, err: error }, "a customer's file was refused");
      else {
        log.warn({ account: account.id, media: ref.id, err: error }, "a customer's file could not be downloaded yet");
        missing.push(ref);
      }
      continue;
    }
    files.push({ key: await fileStorage().put(got.bytes), name: got.name, type: got.mime, size: got.bytes.length });
  }
  return { files, missing };
}

interface MediaPayload {
  accountId: number;
  messageId: number;
  media: MediaRef[];
}

/** In the transaction that writes the message: marks it and queues the download of its missing files. */
export async function awaitMedia(tx: Tx, account: ChannelAccount, messageId: number, missing: MediaRef[]) {
  const { schema } = getDb();
  await tx.update(schema.messages).set({ fileState: "pending" }).where(eq(schema.messages.id, messageId));
  // the first try was just now: the next after the queue's first backoff
  await enqueue(tx, {
    kind: MEDIA_JOB,
    key: `media:${messageId}`,
    payload: { accountId: account.id, messageId, media: missing } satisfies MediaPayload,
    runAt: Date.now() + backoffMs(1),
  });
}

/** Another run set the file first: this run's copy is rolled back. */
class AlreadyDone extends Error {}

/**
 * Sets the files on the waiting message: the first on the message itself (its text stays as the
 * caption), any more as file messages right after it; the mark goes ("failed" when some never came).
 */
async function attach(messageId: number, files: StoredFile[], complete: boolean) {
  const handle = getDb();
  const m = handle.schema.messages;
  const [row] = await handle.db.select().from(m).where(eq(m.id, messageId));
  if (!row || row.fileState !== "pending") return null;
  const [first, ...more] = row.fileKey ? [undefined, ...files] : files;
  try {
    await handle.transaction(async (tx) => {
      const own = first ? fileMessage(row.ticketId, first, { senderName: row.senderName }, row.createdAt) : null;
      const changed = await tx
        .update(m)
        .set({
          fileState: complete ? null : "failed",
          ...(own
            ? { type: own.type, body: row.body || own.body, fileKey: own.fileKey, fileName: own.fileName, fileType: own.fileType, fileSize: own.fileSize }
            : {}),
        })
        .where(and(eq(m.id, messageId), eq(m.fileState, "pending")))
        .returning({ id: m.id });
      if (!changed.length) throw new AlreadyDone();
      if (more.length) await tx.insert(m).values(more.map((f) => fileMessage(row.ticketId, f!, { senderName: row.senderName }, row.createdAt)));
    });
  } catch (error) {
    if (error instanceof AlreadyDone) return null;
    throw error;
  }
  return row.ticketId;
}

async function tellOpenPages(ticketId: number) {
  const { db, schema } = getDb();
  const [ticket] = await db.select().from(schema.tickets).where(eq(schema.tickets.id, ticketId));
  // the open conversation reloads and shows the file (or the mark's new words)
  if (ticket) toOpenPages(ticket, SERVER_EVENTS.updateTicket);
}

export function defineMediaJob() {
  defineJobKind(MEDIA_JOB, {
    async run(raw, { lastAttempt }) {
      const payload = raw as MediaPayload;
      const account = await loadAccount(payload.accountId);
      const adapter = account ? await adapterFor(account.kind) : undefined;
      // the account deleted or switched off: the file cannot come any more
      if (!account?.enabled || !adapter?.downloadMedia) {
        const ticketId = await attach(payload.messageId, [], false);
        if (ticketId) await tellOpenPages(ticketId);
        return;
      }
      const { files, missing } = await fetchMedia(adapter.downloadMedia, account, payload.media);
      // still failing: tried again with the queue's backoff; what came this time is fetched again then
      if (missing.length && !lastAttempt) {
        for (const f of files) await fileStorage().remove(f.key);
        throw new Error(`${missing.length} of the customer's files could not be downloaded`);
      }
      const ticketId = await attach(payload.messageId, files, !missing.length);
      if (!ticketId) for (const f of files) await fileStorage().remove(f.key);
      else await tellOpenPages(ticketId);
    },
    async failed(raw) {
      // given up some other way (a lease run out on the last attempt): the mark says so
      const ticketId = await attach((raw as MediaPayload).messageId, [], false);
      if (ticketId) await tellOpenPages(ticketId);
    },
  });
}
