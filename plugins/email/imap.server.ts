// IMAP polling of an EMAIL account's mailbox (imapflow). Where it stands is a cursor per account
// (UIDVALIDITY and the last UID recorded), never the \Seen flag: the mailbox is opened read-only
// (EXAMINE), so nothing here changes a flag, and people reading the mailbox elsewhere change
// nothing for us. New UIDs are looked at by their envelope first, in batches; a mail whose
// Message-ID is stored already (came over SMTP, or an earlier poll) is skipped without its body;
// the others stream into file storage and become inbound events before the cursor moves.
import { ImapFlow } from "imapflow";
import { isTicked, type ChannelAccount } from "@plugins/channels/adapter";
import { readCursor, setAccountState, writeCursor } from "@plugins/channels/accounts.server";
import { MAIL_PROVIDER, mailEventKey } from "./event-key";
import { hasInboundEvent } from "@plugins/channels/inbound.server";
import { pollLoop } from "@plugins/channels/poll-loop.server";
import { mailMaxBytes, recordTooLarge, storeFetchedMail } from "./store-mail.server";

export const IMAP_CURSOR = "imap";
const BATCH = 200;
const pollMs = () => Number(process.env.IMAP_POLL_MS) || 60_000;
/** Mails fetched and stored side by side (IMAP_FETCH_LANES, default 4). */
const fetchLanes = () => Math.max(1, Number(process.env.IMAP_FETCH_LANES) || 4);

interface Cursor {
  uidValidity: string;
  lastUid: number;
}

function client(account: ChannelAccount) {
  const secure = isTicked(account.config.imapSecure);
  const imap = new ImapFlow({
    host: account.config.imapHost,
    port: Number(account.config.imapPort) || (secure ? 993 : 143),
    secure,
    auth: { user: account.config.imapUser || account.address, pass: account.secrets.imapPassword ?? "" },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
  });
  // a dropped connection is reported through the pending command; without a listener it would crash the process
  imap.on("error", () => undefined);
  return imap;
}

/** The server's words where it gave some (a failed LOGIN, a missing folder), else the socket's. */
export function imapError(error: unknown, account?: ChannelAccount): string {
  const e = error as { responseText?: string; authenticationFailed?: boolean; code?: string; message?: string };
  const where = account ? `${account.config.imapHost}:${Number(account.config.imapPort) || (isTicked(account.config.imapSecure) ? 993 : 143)}` : "";
  if (e?.authenticationFailed) return `IMAP login failed: ${e.responseText || e.message || "authentication failed"}`;
  if (e?.code === "ECONNREFUSED") return `IMAP server ${where} refused the connection`;
  if (e?.code === "ENOTFOUND") return `IMAP server ${account?.config.imapHost} not found`;
  if (e?.code === "ETIMEDOUT" || e?.code === "CONNECT_TIMEOUT" || e?.code === "GREETING_TIMEOUT") return `IMAP server ${where} did not answer`;
  return `IMAP: ${e?.responseText || e?.message || String(error)}`;
}

/** Logs in and opens the mailbox read-only (the admin's Test button). */
export async function testImap(account: ChannelAccount): Promise<{ ok: true } | { ok: false; error: string }> {
  const imap = client(account);
  try {
    await imap.connect();
    const mailbox = account.config.imapMailbox || "INBOX";
    try {
      await imap.mailboxOpen(mailbox, { readOnly: true });
    } catch (error) {
      return { ok: false, error: `IMAP folder "${mailbox}": ${(error as { responseText?: string }).responseText || (error as Error).message}` };
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, error: imapError(error, account) };
  } finally {
    await imap.logout().catch(() => imap.close());
  }
}

export interface PollHooks {
  /** A new UID seen in the mailbox (the bench's clock starts here). */
  seen?(uid: number): void;
  /** Whether to stop between mails (the watcher was stopped). */
  stopped?(): boolean;
}

/** One pass over the mailbox: records every mail after the cursor; answers what it did. */
export async function pollImap(account: ChannelAccount, hooks: PollHooks = {}) {
  const mailboxPath = account.config.imapMailbox || "INBOX";
  const result = { seen: 0, stored: 0, skipped: 0, tooLarge: 0 };
  const imap = client(account);
  await imap.connect();
  try {
    const lock = await imap.getMailboxLock(mailboxPath, { readOnly: true });
    try {
      const mailbox = imap.mailbox;
      if (!mailbox) throw new Error(`IMAP folder "${mailboxPath}" could not be opened`);
      const uidValidity = String(mailbox.uidValidity);
      let cursor: Cursor = { uidValidity, lastUid: 0 };
      try {
        const stored = JSON.parse((await readCursor(account.id, IMAP_CURSOR)) ?? "null") as Cursor | null;
        // another UIDVALIDITY: the UIDs mean other mails now; start over (stored mails dedupe by key)
        if (stored && stored.uidValidity === uidValidity) cursor = stored;
      } catch {
        // an unreadable cursor: start over, the event keys keep it from doubling anything
      }
      if (mailbox.exists === 0 || (mailbox.uidNext && mailbox.uidNext <= cursor.lastUid + 1)) return result;

      // "n:*" also answers the last mail when none is above n, hence the filter
      const found = await imap.search({ uid: `${cursor.lastUid + 1}:*` }, { uid: true });
      const uids = (found || []).filter((uid) => uid > cursor.lastUid).sort((a, b) => a - b);
      let written = cursor.lastUid;
      const advance = async (uid: number) => {
        cursor = { uidValidity, lastUid: uid };
        written = uid;
        await writeCursor(account.id, IMAP_CURSOR, JSON.stringify(cursor));
      };

      for (let i = 0; i < uids.length; i += BATCH) {
        if (hooks.stopped?.()) break;
        const batch = uids.slice(i, i + BATCH);
        // headers first: a mail stored already costs a few hundred bytes, not its body
        const heads = await imap.fetchAll(batch.join(","), { uid: true, envelope: true, size: true }, { uid: true });
        heads.sort((a, b) => a.uid - b.uid);

        /** Stores one mail (or finds it stored); answers whether an event was written. */
        const take = async (head: (typeof heads)[number]) => {
          hooks.seen?.(head.uid);
          result.seen++;
          const messageId = head.envelope?.messageId;
          const meta = { uid: head.uid, mailbox: mailboxPath, uidValidity };
          if (messageId && (await hasInboundEvent(MAIL_PROVIDER, mailEventKey(messageId, "")))) {
            result.skipped++;
            return false;
          }
          if ((head.size ?? 0) > mailMaxBytes()) {
            const where = `${account.id}:${uidValidity}:${head.uid}`;
            await recordTooLarge({ accountId: account.id, source: "imap", messageId, size: head.size ?? 0, where, meta });
            result.tooLarge++;
            return true;
          }
          // chunked partial fetches (BODY.PEEK[]<n.1MB>): memory stays flat however large the mail
          const download = await imap.download(String(head.uid), undefined, { uid: true, chunkSize: 1024 * 1024 });
          // expunged since the envelope came: nothing to store
          if (!download.content) return false;
          const recorded = await storeFetchedMail({ accountId: account.id, source: "imap", messageId, content: download.content, meta });
          if (recorded.duplicate) result.skipped++;
          else result.stored++;
          return true;
        };

        // a few mails at once (file storage and the database overlap with the next download); the
        // cursor only passes a UID once it and every UID before it are recorded
        const handled = new Set<number>();
        let contiguous = 0;
        let unwritten = false;
        let writes: Promise<void> = Promise.resolve();
        const moveCursor = (force: boolean) => {
          while (contiguous < heads.length && handled.has(heads[contiguous].uid)) contiguous++;
          const target = contiguous ? heads[contiguous - 1].uid : written;
          if (target > cursor.lastUid) cursor = { uidValidity, lastUid: target };
          if (!(force || unwritten) || target <= written) return writes;
          unwritten = false;
          // stored before acknowledged: the cursor moves only over committed events
          writes = writes.then(() => (target > written ? advance(target) : undefined));
          return writes;
        };
        let next = 0;
        let failure: unknown;
        const lane = async () => {
          while (next < heads.length && failure === undefined && !hooks.stopped?.()) {
            const head = heads[next++];
            try {
              if (await take(head)) unwritten = true;
              handled.add(head.uid);
              await moveCursor(false);
            } catch (error) {
              // the other lanes finish the mail they have, then the pass ends with this error
              failure ??= error;
              return;
            }
          }
        };
        await Promise.all(Array.from({ length: fetchLanes() }, lane));
        await moveCursor(true);
        if (failure !== undefined) throw failure;
      }
      if (cursor.lastUid > written) await advance(cursor.lastUid);
    } finally {
      lock.release();
    }
  } finally {
    await imap.logout().catch(() => imap.close());
  }
  return result;
}

/** Polls the mailbox every IMAP_POLL_MS (default 60 s) until stopped; answers the stop function. */
export function watchImap(account: ChannelAccount): () => Promise<void> {
  return pollLoop({
    accountId: account.id,
    intervalMs: pollMs(),
    pass: async (stopped) => {
      await pollImap(account, { stopped });
    },
    setState: (outcome) => setAccountState(account.id, outcome),
    describe: (error) => imapError(error, account),
  });
}
