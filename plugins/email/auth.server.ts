// SPF, DKIM and DMARC verdicts of an inbound mail (mailauth), stored on the message so the view can
// warn, and so a mail claiming to be from an agent counts as the agent's only when it proves it.
//
// Where the verdict comes from:
// - over our SMTP listener: checked here, with the client's IP, HELO and MAIL FROM;
// - over IMAP or Graph we never saw the sending server, so we read the topmost Authentication-Results
//   header: the one the receiving provider (Gmail, Microsoft 365, ...) adds on delivery. Anything a
//   sender forged sits below it and is ignored. A mail without one is unauthenticated.
// - over our SMTP listener from a loopback or private address: that is the relay in front of us (your
//   MX, Postfix), not the sender; its topmost Authentication-Results counts, as for IMAP.
// Without network (or past the timeout) the verdict is temperror, never a crash; MAIL_AUTH=off skips.
// DNS answers are kept a few minutes: a burst of mail from one domain asks once.
import os from "node:os";
import { BlockList, isIP } from "node:net";
import { promises as dns } from "node:dns";
import type { Readable } from "node:stream";
import { authenticate as mailauth } from "mailauth";

export type AuthResult = "pass" | "fail" | "softfail" | "neutral" | "none" | "temperror" | "permerror" | "policy" | "skipped";

export interface AuthVerdict {
  spf: AuthResult;
  dkim: AuthResult;
  dmarc: AuthResult;
  /** DMARC passed, or with no DMARC record an SPF or DKIM pass for the From domain. */
  authenticated: boolean;
  /** smtp (checked here), header (the provider's Authentication-Results), off (MAIL_AUTH=off) */
  method: "smtp" | "header" | "off";
}

export type Resolver = (name: string, rrtype: string) => Promise<unknown>;

let injectedResolver: Resolver | undefined;
/** Tests answer DNS themselves. */
export function setAuthResolver(resolver: Resolver | undefined) {
  injectedResolver = resolver;
}

// relays in front of the listener: loopback, private and link-local networks
const relays = new BlockList();
relays.addSubnet("127.0.0.0", 8, "ipv4");
relays.addSubnet("10.0.0.0", 8, "ipv4");
relays.addSubnet("172.16.0.0", 12, "ipv4");
relays.addSubnet("192.168.0.0", 16, "ipv4");
relays.addSubnet("169.254.0.0", 16, "ipv4");
relays.addAddress("::1", "ipv6");
relays.addSubnet("fc00::", 7, "ipv6");
relays.addSubnet("fe80::", 10, "ipv6");

/** A client on our own networks is a relay that handed the mail on, not the sending server. */
export function isRelayAddress(ip: string): boolean {
  const plain = ip.replace(/^::ffff:(?=\d+\.)/, "");
  const family = isIP(plain);
  return family === 4 ? relays.check(plain, "ipv4") : family === 6 ? relays.check(plain, "ipv6") : false;
}

const DNS_KEEP_MS = 5 * 60_000;
const dnsAnswers = new Map<string, { until: number; answer: Promise<unknown> }>();
/** mailauth's lookups through the system resolver, each answer (or its NXDOMAIN) kept for a while. */
const cachingResolver: Resolver = (name, rrtype) => {
  const key = `${rrtype} ${name.toLowerCase()}`;
  const now = Date.now();
  const kept = dnsAnswers.get(key);
  if (kept && kept.until > now) return kept.answer;
  if (dnsAnswers.size > 10_000) dnsAnswers.clear();
  const answer = dns.resolve(name, rrtype as "TXT");
  answer.catch(() => {});
  dnsAnswers.set(key, { until: now + DNS_KEEP_MS, answer });
  return answer;
};

const timeoutMs = () => Number(process.env.MAIL_AUTH_TIMEOUT_MS) || 10_000;

const RESULTS: AuthResult[] = ["pass", "fail", "softfail", "neutral", "none", "temperror", "permerror", "policy"];
const result = (v: unknown): AuthResult => {
  const s = String(v ?? "none").toLowerCase();
  return (RESULTS as string[]).includes(s) ? (s as AuthResult) : "none";
};

const domainOf = (address: string | undefined) => (address ?? "").toLowerCase().split("@").pop() ?? "";

/** Aligned: the same domain, or one a subdomain of the other (DMARC relaxed alignment). */
function aligned(a: string, b: string) {
  return !!a && !!b && (a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`));
}

export function authOff(): AuthVerdict {
  return { spf: "skipped", dkim: "skipped", dmarc: "skipped", authenticated: false, method: "off" };
}

/** Checks a mail that came over our SMTP listener. */
export async function authenticateSmtp(
  raw: Readable,
  opts: { ip: string; helo?: string; sender?: string; fromAddress: string; mta?: string; timeoutMs?: number },
): Promise<AuthVerdict> {
  if (process.env.MAIL_AUTH === "off") {
    raw.resume();
    return authOff();
  }
  const check = mailauth(raw, {
    ip: opts.ip,
    helo: opts.helo,
    sender: opts.sender,
    mta: opts.mta ?? os.hostname(),
    resolver: (injectedResolver ?? cachingResolver) as never,
    disableArc: true,
    disableBimi: true,
  });
  // past the timeout the check is abandoned: its late failure must not surface as an unhandled rejection
  check.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), opts.timeoutMs ?? timeoutMs())));
  try {
    const r = await Promise.race([check, timeout]);
    if (!r) {
      raw.destroy();
      return { spf: "temperror", dkim: "temperror", dmarc: "temperror", authenticated: false, method: "smtp" };
    }
    const fromDomain = domainOf(opts.fromAddress);
    const spf = result(r.spf && typeof r.spf === "object" ? (r.spf as { status?: { result?: string } }).status?.result : "none");
    const dkimRows = (r.dkim?.results ?? []) as { status?: { result?: string }; signingDomain?: string }[];
    const dkimPass = dkimRows.find((d) => result(d.status?.result) === "pass" && aligned(domainOf(d.signingDomain), fromDomain));
    const dkim = dkimPass ? "pass" : dkimRows.length ? result(dkimRows[0].status?.result) : "none";
    const dmarc = result(r.dmarc && typeof r.dmarc === "object" ? (r.dmarc as { status?: { result?: string } }).status?.result : "none");
    const spfAligned = spf === "pass" && aligned(domainOf(opts.sender || opts.fromAddress), fromDomain);
    const authenticated = dmarc === "pass" || (dmarc === "none" && (spfAligned || !!dkimPass));
    return { spf, dkim, dmarc, authenticated, method: "smtp" };
  } catch {
    return { spf: "temperror", dkim: "temperror", dmarc: "temperror", authenticated: false, method: "smtp" };
  } finally {
    clearTimeout(timer);
  }
}

/** The verdict of the topmost Authentication-Results header (IMAP, Graph): the receiving provider's. */
export function verdictFromHeader(topmost: string | null | undefined): AuthVerdict {
  const header = (topmost ?? "").toLowerCase();
  const find = (method: string): AuthResult => {
    const m = new RegExp(`(?:^|[;\\s])${method}\\s*=\\s*([a-z]+)`).exec(header);
    return m ? result(m[1]) : "none";
  };
  const spf = find("spf");
  const dkim = find("dkim");
  const dmarc = find("dmarc");
  // without DMARC's alignment check we only trust the provider's DMARC pass (or Microsoft's compauth)
  const authenticated = dmarc === "pass" || /compauth\s*=\s*pass/.test(header);
  return { spf, dkim, dmarc, authenticated, method: "header" };
}

/** A verdict the view warns about: a check failed outright. */
export function authFailed(v: Pick<AuthVerdict, "spf" | "dkim" | "dmarc">): boolean {
  return v.dmarc === "fail" || v.spf === "fail" || v.dkim === "fail";
}
