// System mail (invites, password resets): queued in the database in the caller's transaction,
// sent by the outbox worker (app/mail/worker.server.ts) when a mail server is configured.
import { getDb, type Tx } from "@db/client";
import { isLanguage, type Language } from "~/i18n";
import { getSetting } from "~/models/settings.server";

export type OutgoingMail = { to: string; subject: string; text: string; html?: string };

/** SMTP_URL (smtp://user:pass@host:port or smtps://...) names the mail server; without it nothing is sent. */
export function mailConfigured() {
  return !!process.env.SMTP_URL;
}

/** Queues a mail once per dedupeKey (a retried request queues nothing new). */
export async function queueMail(dedupeKey: string, mail: OutgoingMail, tx?: Tx) {
  const { db, schema } = getDb();
  const now = Date.now();
  await (tx ?? db)
    .insert(schema.mailOutbox)
    .values({ dedupeKey, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html ?? null, createdAt: now, nextAttemptAt: now })
    .onConflictDoNothing();
}

/** The language a person's mail is written in: theirs, else the workspace's, else English. */
export async function mailLanguage(person?: { language?: string | null }): Promise<Language> {
  if (isLanguage(person?.language)) return person.language;
  const workspace = await getSetting("language");
  return isLanguage(workspace) ? workspace : "en";
}
