// The built-in SMTP listener (issue 14): mail for our mailboxes is streamed to file storage, recorded
// as an inbound event with its job, and only then answered 250, so an acknowledged mail is never
// lost; a redelivery (the sender retrying after a lost 250, or the same mail over IMAP) is the same
// event and answered 250 without a second copy. Whatever a client sends, it gets an SMTP answer;
// nothing it does reaches past its own connection.
import os from "node:os";
import { createHash } from "node:crypto";
import { PassThrough } from "node:stream";
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from "smtp-server";
import { enabledAccounts } from "@plugins/channels/accounts.server";
import { recordInboundEvent } from "@plugins/channels/inbound.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { fileStorage, TooLarge, type FileStorage } from "~/storage.server";
import { warnings, type LogFn } from "~/ops/log.server";
import { metrics } from "~/ops/metrics.server";
import { MAIL_PROVIDER, mailEventKey } from "./event-key";
import { normalizeAddress, tokenFromAddress } from "./threading";
import { DEFAULT_MAIL_MAX_BYTES } from "./store-mail.server";

export const MAX_RECIPIENTS = 100;
/** Past this, the header section is an attack or garbage, not mail. */
export const MAX_HEADER_BYTES = 1024 * 1024;
const ACCOUNT_CACHE_MS = 5_000;

export interface SmtpListenerOptions {
  host?: string;
  /** 0: any free port (tests). */
  port?: number;
  maxBytes?: number;
  maxRecipients?: number;
  /** How long the list of our addresses is kept between RCPT commands. */
  cacheMs?: number;
  storage?: FileStorage;
  record?: typeof recordInboundEvent;
  log?: LogFn;
}

export interface SmtpListener {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** An SMTP error reply; the message carries its enhanced status code. */
function reply(code: number, message: string) {
  return Object.assign(new Error(message), { responseCode: code });
}

/**
 * Reads the header section as it streams past: finds the Message-ID and notices a header section
 * over the limit. A line that is neither a header nor a continuation ends the section, so a mail
 * without headers is a body, not a huge header.
 */
export class HeaderScanner {
  done = false;
  tooLarge = false;
  messageId: string | null = null;
  private pending = "";
  private bytes = 0;
  private inMessageId = false;

  constructor(private readonly limit = MAX_HEADER_BYTES) {}

  push(chunk: Buffer) {
    if (this.done) return;
    const lines = (this.pending + chunk.toString("latin1")).split("\n");
    this.pending = lines.pop() ?? "";
    for (const line of lines) {
      this.line(line.replace(/\r$/, ""));
      if (this.done) return;
    }
    if (this.bytes + this.pending.length > this.limit) this.fail();
  }

  end() {
    if (!this.done && this.pending) this.line(this.pending.replace(/\r$/, ""));
    this.done = true;
  }

  private fail() {
    this.tooLarge = true;
    this.done = true;
  }

  private line(line: string) {
    this.bytes += line.length + 2;
    if (this.bytes > this.limit) return this.fail();
    if (line === "") {
      this.done = true;
    } else if (/^[ \t]/.test(line)) {
      // a folded line continues the header before it
      if (this.inMessageId) this.messageId += " " + line.trim();
    } else {
      const header = /^([\x21-\x39\x3b-\x7e]+)[ \t]*:(.*)$/.exec(line);
      if (!header) {
        this.done = true;
        return;
      }
      this.inMessageId = header[1].toLowerCase() === "message-id" && this.messageId === null;
      if (this.inMessageId) this.messageId = header[2].trim();
    }
  }

  /** The first <id> of the header (some mailers add comments). */
  get id(): string | null {
    if (!this.messageId) return null;
    return /<[^<>\s]+>/.exec(this.messageId)?.[0] ?? (this.messageId.trim().split(/\s+/)[0] || null);
  }
}

export function listenerSettings(env: Record<string, string | undefined> = process.env) {
  const raw = (env.SMTP_LISTEN_PORT ?? "").trim().toLowerCase();
  const off = raw === "off" || raw === "0" || raw === "false" || raw === "no";
  const port = raw === "" ? 2525 : Number(raw);
  const maxBytes = Number(env.MAIL_MAX_BYTES) > 0 ? Number(env.MAIL_MAX_BYTES) : DEFAULT_MAIL_MAX_BYTES;
  return {
    enabled: !off,
    host: env.SMTP_LISTEN_HOST?.trim() || "127.0.0.1",
    port: Number.isInteger(port) && port > 0 && port < 65536 ? port : NaN,
    maxBytes,
  };
}

export async function startSmtpListener(options: SmtpListenerOptions = {}): Promise<SmtpListener> {
  const host = options.host ?? "127.0.0.1";
  const maxBytes = options.maxBytes ?? DEFAULT_MAIL_MAX_BYTES;
  const storage = options.storage ?? fileStorage();
  const record = options.record ?? recordInboundEvent;
  const log = options.log ?? warnings("smtp");
  const counted = (outcome: "stored" | "duplicate" | "refused" | "failed" | "lost") => metrics.smtpMessages.inc({ outcome });
  const cacheMs = options.cacheMs ?? ACCOUNT_CACHE_MS;

  // our addresses, looked up at most every few seconds however many RCPT commands come
  let cached: { at: number; accounts: Promise<ChannelAccount[]> } | null = null;
  const accounts = () => {
    if (!cached || Date.now() - cached.at >= cacheMs) {
      const fresh = { at: Date.now(), accounts: enabledAccounts("EMAIL") };
      // a failed lookup is not kept: the next command asks again
      fresh.accounts.catch(() => cached === fresh && (cached = null));
      cached = fresh;
    }
    return cached.accounts;
  };
  const accountFor = async (address: string) => {
    const a = normalizeAddress(address);
    const list = await accounts();
    const exact = list.find((account) => account.address === a);
    if (exact) return exact;
    // reply+<token>@ at one of our mailboxes' domains: the threading side decides which ticket
    const domain = a.split("@")[1];
    if (tokenFromAddress(a) && domain) return list.find((account) => account.address.split("@")[1] === domain) ?? null;
    return null;
  };

  const server = new SMTPServer({
    name: os.hostname(),
    banner: "OmniDesk mail intake",
    // inbound mail needs no login; without a certificate STARTTLS would only fail
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    // a reverse lookup per connection costs seconds when DNS is slow, and we do not use the name
    disableReverseLookup: true,
    size: maxBytes,
    maxRecipients: options.maxRecipients ?? MAX_RECIPIENTS,
    maxClients: 200,
    logger: false,

    onRcptTo(address: SMTPServerAddress, _session: SMTPServerSession, callback: (err?: Error | null) => void) {
      accountFor(address.address).then(
        (account) => callback(account ? null : reply(550, `5.1.1 <${address.address}>: no such mailbox here`)),
        (error) => {
          log("recipient lookup failed", error);
          callback(reply(451, "4.3.0 Temporary failure looking up the recipient, try again later"));
        },
      );
    },

    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void) {
      receive(stream, session).then(
        (message) => callback(null, message),
        (error) => callback(error),
      );
    },
  } as ConstructorParameters<typeof SMTPServer>[0]);

  async function receive(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const hash = createHash("sha256");
    const headers = new HeaderScanner();
    const body = new PassThrough();
    const state: { refused: Error | null } = { refused: null };
    const stored = storage.putStream(body, { maxBytes }).then(
      (file) => file,
      (error) => {
        state.refused ??= error;
        return null;
      },
    );
    // Read every byte the client sends, whatever happens to our copy: an SMTP reply is only
    // possible once the whole DATA section is in.
    const ended = new Promise<boolean>((resolve) => {
      stream.on("data", (chunk: Buffer) => {
        // refused already: the rest is only read to reach the end of DATA
        if (state.refused || body.destroyed) return;
        hash.update(chunk);
        headers.push(chunk);
        if (headers.tooLarge) {
          state.refused = reply(552, `5.3.4 Header section larger than ${MAX_HEADER_BYTES} bytes; message refused`);
          body.destroy(state.refused);
          return;
        }
        if (!body.write(chunk)) {
          stream.pause();
          const go = () => {
            body.off("drain", go).off("close", go);
            stream.resume();
          };
          body.on("drain", go).on("close", go);
        }
      });
      stream.once("end", () => resolve(true));
      // the client went away mid-message: nothing is kept
      stream.once("error", () => resolve(false));
      stream.once("close", () => resolve(stream.readableEnded));
    });
    const complete = await ended;
    headers.end();
    if (!complete) body.destroy(new Error("connection closed during DATA"));
    else body.end();
    const file = await stored;
    if (!complete) {
      counted("lost");
      if (file) await storage.remove(file.key).catch(() => {});
      throw reply(451, "4.4.2 Connection lost during DATA");
    }
    const refused = state.refused;
    if (refused || !file) {
      if (file) await storage.remove(file.key).catch(() => {});
      if (refused instanceof TooLarge) {
        counted("refused");
        log(`refused a mail from ${session.remoteAddress}: larger than ${maxBytes} bytes`);
        throw reply(552, `5.3.4 Message larger than ${maxBytes} bytes; not stored`);
      }
      if (refused && (refused as { responseCode?: number }).responseCode) {
        counted("refused");
        log(`refused a mail from ${session.remoteAddress}: ${refused.message}`);
        throw refused;
      }
      counted("failed");
      log("storing a mail failed", refused);
      throw reply(451, "4.3.0 Temporary storage failure, try again later");
    }

    const rcptTo = session.envelope.rcptTo.map((r) => normalizeAddress(r.address));
    const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
    const sha256 = hash.digest("hex");
    let account: ChannelAccount | null = null;
    try {
      for (const r of rcptTo) if ((account = await accountFor(r))) break;
      const result = await record({
        accountId: account?.id ?? null,
        provider: MAIL_PROVIDER,
        eventKey: mailEventKey(headers.id, sha256),
        source: "smtp",
        meta: { ip: session.remoteAddress, helo: session.hostNameAppearsAs, mailFrom, rcptTo, tls: false, sha256 },
        rawKey: file.key,
        size: file.size,
      });
      counted(result.duplicate ? "duplicate" : "stored");
      return result.duplicate ? "2.0.0 Already received; not stored again" : `2.0.0 Stored as event ${result.eventId}`;
    } catch (error) {
      // not recorded: the sender keeps the mail and retries, and our copy goes
      await storage.remove(file.key).catch(() => {});
      counted("failed");
      log("recording a mail failed", error);
      throw reply(451, "4.3.0 Temporary failure storing the message, try again later");
    }
  }

  // a client's broken connection is its own trouble, never the process's
  server.on("error", (error: Error & { code?: string }) => {
    if (!["ECONNRESET", "EPIPE", "ETIMEDOUT", "ECONNABORTED"].includes(error.code ?? "")) log("connection error", error);
  });

  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.server.once("error", failed);
    server.listen(options.port ?? 2525, host, () => {
      server.server.off("error", failed);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : (options.port ?? 0);
  return {
    host,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
