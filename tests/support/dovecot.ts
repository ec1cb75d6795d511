// A private Dovecot (Debian dovecot-imapd) on loopback for the IMAP tests and bench: its own
// config, base_dir and maildir in a temp directory, a passwd-file with one test user, plain
// LOGIN without TLS (loopback only). Started once per test file; never assumes one is running.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { ImapFlow } from "imapflow";

export const DOVECOT_BIN = process.env.DOVECOT_BIN || "/usr/sbin/dovecot";

export interface Dovecot {
  host: string;
  port: number;
  user: string;
  password: string;
  /** A logged-in client for the test's own use (APPEND, flags, mailbox changes); the caller logs out. */
  client(): Promise<ImapFlow>;
  /** Delivers mails into the test user's mailbox by IMAP APPEND, optionally with flags; UIDs follow the given order when fewer than 100. */
  deliver(mails: (string | Buffer)[], options?: { mailbox?: string; flags?: string[] }): Promise<void>;
  /** Deletes and creates the mailbox again: a new UIDVALIDITY, the UIDs start over. */
  recreate(mailbox: string, mails?: (string | Buffer)[]): Promise<void>;
  stop(): Promise<void>;
}

async function freePort() {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function answers(host: string, port: number) {
  return new Promise<boolean>((resolve) => {
    const socket = net.connect(port, host);
    socket.setTimeout(1000);
    socket.once("data", (d) => {
      socket.destroy();
      resolve(d.toString().startsWith("* OK"));
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

export async function startDovecot(options: { user?: string; password?: string } = {}): Promise<Dovecot> {
  if (!fs.existsSync(DOVECOT_BIN))
    throw new Error(`Dovecot is not installed (${DOVECOT_BIN} missing): the IMAP tests need a real server; install it with apt-get install dovecot-imapd`);
  const user = options.user ?? "desk";
  const password = options.password ?? "desk-password-1";
  const host = "127.0.0.1";
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-dovecot-"));
  // the mail processes run as an unprivileged uid (Dovecot refuses uid 0), so they must reach the dir
  fs.chmodSync(dir, 0o755);
  const me = os.userInfo();
  const root = me.uid === 0;
  const uid = root ? 65534 : me.uid;
  const gid = root ? 65534 : me.gid;
  for (const d of ["run", "state", "mail"]) fs.mkdirSync(path.join(dir, d));
  if (root) fs.chownSync(path.join(dir, "mail"), uid, gid);
  fs.writeFileSync(path.join(dir, "passwd"), `${user}:{PLAIN}${password}\n`);
  // as root Dovecot's own unprivileged users (Debian creates them); as anyone else, that user
  const loginUser = root ? "dovenull" : me.username;
  const internalUser = root ? "dovecot" : me.username;
  const conf = `
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = ${host}
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
# the wrong-password tests need not wait the default 2 s per failure
auth_failure_delay = 0
# test mail need not survive a power cut: no fsync per APPEND
mail_fsync = never
default_login_user = ${loginUser}
default_internal_user = ${internalUser}
first_valid_uid = ${Math.min(uid, 500)}
mail_location = maildir:${dir}/mail/%u
mail_max_userip_connections = 100
passdb {
  driver = passwd-file
  args = scheme=PLAIN ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${uid} gid=${gid} home=${dir}/mail/%u
}
service imap-login {
  inet_listener imap {
    address = ${host}
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
`;
  const confFile = path.join(dir, "dovecot.conf");
  fs.writeFileSync(confFile, conf);
  const child: ChildProcess = spawn(DOVECOT_BIN, ["-F", "-c", confFile], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once("exit", () => ((exited = true), resolve())));
  const log = () => output + (fs.existsSync(path.join(dir, "dovecot.log")) ? fs.readFileSync(path.join(dir, "dovecot.log"), "utf8") : "");

  for (let i = 0; ; i++) {
    if (exited) throw new Error(`Dovecot did not start:\n${log()}`);
    if (await answers(host, port)) break;
    if (i > 100) {
      child.kill("SIGTERM");
      throw new Error(`Dovecot did not answer on ${host}:${port}:\n${log()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  const client = async () => {
    const c = new ImapFlow({ host, port, secure: false, auth: { user, pass: password }, logger: false, disableAutoIdle: true });
    await c.connect();
    return c;
  };

  return {
    host,
    port,
    user,
    password,
    client,
    async deliver(mails, opts = {}) {
      // a few connections side by side for large batches (each APPEND waits for Dovecot's file write)
      const lanes = Math.min(4, Math.ceil(mails.length / 100));
      await Promise.all(
        Array.from({ length: lanes }, async (_, lane) => {
          const c = await client();
          try {
            for (let i = lane; i < mails.length; i += lanes) await c.append(opts.mailbox ?? "INBOX", mails[i], opts.flags ?? []);
          } finally {
            await c.logout();
          }
        }),
      );
    },
    async recreate(mailbox, mails = []) {
      const c = await client();
      try {
        await c.mailboxDelete(mailbox).catch(() => undefined);
        await c.mailboxCreate(mailbox);
        for (const mail of mails) await c.append(mailbox, mail);
      } finally {
        await c.logout();
      }
    },
    async stop() {
      if (!exited) {
        child.kill("SIGTERM");
        await exit;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
