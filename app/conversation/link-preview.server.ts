// Link previews (the rich-links toggle, spec sections 1 and 2): the title, description and image of
// a page a message links to. A job fetches them after the message commits (a reply never waits on
// someone else's web server), stores them in link_previews, and the page renders what is stored, on
// the server, when the reader's rich-links cookie is on.
//
// The fetch runs on our server at a URL anyone may type, so it must not become a way into our own
// network (SSRF): only http/https on ports 80 and 443; the host is resolved once and every address
// must be public (no loopback, private, link-local, unique-local, CGNAT, multicast, unspecified or
// reserved, nor any of them mapped into IPv6); the connection goes to the address that was checked
// (no second lookup for DNS rebinding to answer differently), with the name kept for Host and TLS;
// at most 3 redirects, each hop checked again; 3 s in all; only text/html; at most 512 KB read.
import { createHash } from "node:crypto";
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { eq, inArray, lt } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { defineJobKind, enqueue } from "~/jobs/queue.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { toOpenPages } from "./events.server";
import type { LinkPreview } from "./message-view.server";

export const PREVIEW_JOB = "conversation.linkPreview";
/** A stored preview is fetched again after a day (when a new message links to it). */
export const PREVIEW_TTL_MS = 24 * 60 * 60 * 1000;
/** Links of one message that get a preview: a message full of links gets the first few. */
export const LINKS_PER_MESSAGE = 3;
export const MAX_URL_LENGTH = 2048;
export const FETCH_TIMEOUT_MS = 3_000;
export const MAX_BYTES = 512 * 1024;
export const MAX_REDIRECTS = 3;
const TEXT_LIMITS = { title: 300, description: 500, image: MAX_URL_LENGTH };

// ---------------------------------------------------------------- which addresses we never call

const blocked = new net.BlockList();
for (const [address, prefix] of [
  ["0.0.0.0", 8], // "this network", 0.0.0.0
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local (cloud metadata lives at 169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
] as const)
  blocked.addSubnet(address, prefix, "ipv4");
for (const [address, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["::", 96], // IPv4-compatible (deprecated): an IPv4 address in disguise
  ["64:ff9b::", 96], // NAT64: reaches IPv4 addresses through a gateway
  ["fe80::", 10], // link-local
  ["fc00::", 7], // unique-local
  ["ff00::", 8], // multicast
] as const)
  blocked.addSubnet(address, prefix, "ipv6");

/** True for an address a preview may be fetched from (IPv4-mapped IPv6 is checked as its IPv4). */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !blocked.check(address, "ipv4");
  if (family !== 6) return false;
  const lower = address.toLowerCase();
  // ::ffff:a.b.c.d and ::ffff:7f00:1 (BlockList matches IPv4 rules on mapped addresses; be explicit)
  const mapped = mappedIpv4(lower);
  if (mapped) return isPublicAddress(mapped);
  // 6to4 (2002:AABB:CCDD::/16) carries an IPv4 address and reaches it through a relay
  if (/^2002:/.test(lower)) {
    const [, hi = "0", lo = "0"] = lower.split(":");
    const v4 = [parseInt(hi, 16) >> 8, parseInt(hi, 16) & 255, parseInt(lo, 16) >> 8, parseInt(lo, 16) & 255].join(".");
    if (!isPublicAddress(v4)) return false;
  }
  return !blocked.check(lower, "ipv6");
}

function mappedIpv4(v6: string): string | null {
  const dotted = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6);
  if (dotted) return dotted[1];
  const hex = /^(?:0{0,4}:){0,5}:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

// ---------------------------------------------------------------- the guarded fetch

export interface ResolvedAddress {
  address: string;
  family: number;
}

/**
 * What the fetch trusts. Production uses the defaults; tests inject a resolver (no internet) and,
 * for the one happy-path test against a server on loopback, allowances. Nothing in configuration
 * reaches these: they exist only as arguments.
 */
export interface FetchGuard {
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  addressAllowed?: (address: string) => boolean;
  portAllowed?: (port: number, protocol: string) => boolean;
  timeoutMs?: number;
  maxBytes?: number;
}

const defaultResolve = (hostname: string) => dns.promises.lookup(hostname, { all: true, verbatim: true });
const defaultPortAllowed = (port: number) => port === 80 || port === 443;

export type FetchOutcome = { ok: true; preview: LinkPreview } | { ok: false; reason: RefusalReason };
export type RefusalReason = "url" | "port" | "address" | "resolve" | "redirects" | "status" | "type" | "timeout" | "network" | "empty";

class Refused extends Error {
  constructor(readonly reason: RefusalReason) {
    super(reason);
  }
}

/** Fetches a page's preview through the guard; never throws (a refusal is an outcome). */
export async function fetchPreview(url: string, guard: FetchGuard = {}): Promise<FetchOutcome> {
  const deadline = AbortSignal.timeout(guard.timeoutMs ?? FETCH_TIMEOUT_MS);
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      const target = await checkedTarget(current, guard, deadline);
      const response = await request(target, guard, deadline);
      if (response.status >= 300 && response.status < 400 && response.location) {
        if (hop >= MAX_REDIRECTS) throw new Refused("redirects");
        current = new URL(response.location, target.url).toString();
        continue;
      }
      if (response.status !== 200) throw new Refused("status");
      const preview = parsePreview(response.body, target.url.toString());
      if (!preview.title && !preview.description) throw new Refused("empty");
      return { ok: true, preview: { ...preview, url } };
    }
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.reason };
    if (deadline.aborted) return { ok: false, reason: "timeout" };
    return { ok: false, reason: "network" };
  }
}

interface Target {
  url: URL;
  address: ResolvedAddress;
}

/** The URL's scheme and port allowed and its host resolved to addresses that are all allowed. */
async function checkedTarget(raw: string, guard: FetchGuard, deadline: AbortSignal): Promise<Target> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Refused("url");
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || raw.length > MAX_URL_LENGTH) throw new Refused("url");
  const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  if (!(guard.portAllowed ?? defaultPortAllowed)(port, url.protocol)) throw new Refused("port");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const allowed = guard.addressAllowed ?? isPublicAddress;
  let addresses: ResolvedAddress[];
  if (net.isIP(host)) addresses = [{ address: host, family: net.isIP(host) }];
  else {
    try {
      // the lookup counts against the same 3 s as the request
      addresses = await Promise.race([
        (guard.resolve ?? defaultResolve)(host),
        new Promise<never>((_, reject) => {
          if (deadline.aborted) reject(deadline.reason);
          deadline.addEventListener("abort", () => reject(deadline.reason), { once: true });
        }),
      ]);
    } catch {
      throw new Refused(deadline.aborted ? "timeout" : "resolve");
    }
  }
  // every address, not just the first: a name that also resolves inside is refused outright
  if (!addresses.length || !addresses.every((a) => allowed(a.address))) throw new Refused("address");
  return { url, address: addresses[0] };
}

interface Answer {
  status: number;
  location?: string;
  body: string;
}

/** One request to the checked address; the name goes in Host and in TLS's servername (and its certificate check). */
function request(target: Target, guard: FetchGuard, signal: AbortSignal): Promise<Answer> {
  const { url, address } = target;
  const maxBytes = guard.maxBytes ?? MAX_BYTES;
  const lib = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      url,
      {
        method: "GET",
        signal,
        agent: false,
        // the connection uses the checked address: a second lookup could answer something else
        lookup: ((_hostname, options, callback) =>
          options?.all ? callback(null, [address]) : callback(null, address.address, address.family)) as net.LookupFunction,
        headers: { "User-Agent": "OmniDesk-LinkPreview/1.0", Accept: "text/html", "Accept-Encoding": "identity" },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.resume();
          return resolve({ status, location: res.headers.location, body: "" });
        }
        const type = String(res.headers["content-type"] ?? "").toLowerCase();
        if (status === 200 && !type.startsWith("text/html")) {
          req.destroy();
          return reject(new Refused("type"));
        }
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => resolve({ status, body: Buffer.concat(chunks).toString("utf8") });
        res.on("data", (chunk: Buffer) => {
          // the head is what we need: stop reading at the limit and use what arrived
          const room = maxBytes - size;
          chunks.push(chunk.subarray(0, room));
          size += Math.min(chunk.length, room);
          if (size >= maxBytes) {
            res.removeAllListeners("data");
            req.destroy();
            done();
          }
        });
        res.on("end", done);
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end();
  });
}

// ---------------------------------------------------------------- reading the page's head

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
function decodeEntities(text: string) {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const clean = (text: string, max: number) =>
  decodeEntities(text)
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, max);

function attributes(tag: string) {
  const found: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-z:_-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi)) found[m[1].toLowerCase()] = m[2] ?? m[3] ?? m[4] ?? "";
  return found;
}

/** og:title, og:description and og:image of a page (the <title> and description meta when missing), as plain text. */
export function parsePreview(html: string, baseUrl: string): Omit<LinkPreview, "url"> {
  const head = html.slice(0, MAX_BYTES).split(/<\/head>/i)[0];
  const meta: Record<string, string> = {};
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const a = attributes(tag);
    const key = (a.property || a.name || "").toLowerCase();
    if (key && a.content !== undefined && !(key in meta)) meta[key] = a.content;
  }
  const title = meta["og:title"] || /<title[^>]*>([\s\S]*?)<\/title>/i.exec(head)?.[1] || "";
  const description = meta["og:description"] || meta["description"] || "";
  let image = "";
  try {
    const resolved = meta["og:image"] ? new URL(decodeEntities(meta["og:image"]), baseUrl) : null;
    if (resolved && (resolved.protocol === "https:" || resolved.protocol === "http:")) image = resolved.toString().slice(0, TEXT_LIMITS.image);
  } catch {
    image = "";
  }
  return { title: clean(title, TEXT_LIMITS.title), description: clean(description, TEXT_LIMITS.description), image };
}

// ---------------------------------------------------------------- links in messages

/** The http(s) links of a plain-text message, the first few, without trailing punctuation. */
export function linksIn(body: string): string[] {
  const found: string[] = [];
  for (const m of body.matchAll(/\bhttps?:\/\/[^\s<>"'`]+/gi)) {
    const link = m[0].replace(/[.,;:!?)\]}]+$/, "");
    if (link.length > MAX_URL_LENGTH || found.includes(link)) continue;
    try {
      new URL(link);
    } catch {
      continue;
    }
    found.push(link);
    if (found.length >= LINKS_PER_MESSAGE) break;
  }
  return found;
}

/** Which messages get previews: plain text only (a mail's HTML is full of tracking and footer links). */
const previewable = (m: { type: string; body: string }) => m.type === "text" && /https?:\/\//i.test(m.body);

export const urlHash = (url: string) => createHash("sha256").update(url).digest("hex");

/**
 * Queues the preview jobs of a conversation's new messages, in their transaction (so they run once
 * it commits). One job per link, day and conversation: the link is fetched once a day however
 * many messages carry it, and each conversation's open pages hear when its preview is there.
 */
export async function queueLinkPreviews(tx: Tx, ticketId: number, messages: { type: string; body: string }[], now = Date.now()) {
  const day = Math.floor(now / PREVIEW_TTL_MS);
  const urls = new Set(messages.filter(previewable).flatMap((m) => linksIn(m.body)));
  for (const url of urls) await enqueue(tx, { kind: PREVIEW_JOB, key: `link-preview:${urlHash(url)}:${day}:${ticketId}`, payload: { url, ticketId } });
  return urls.size;
}

/** The stored previews of messages' links, by message id (only those with something to show). */
export async function previewsOf(messages: { id: number; type: string; body: string }[]): Promise<Map<number, LinkPreview[]>> {
  const links = new Map(messages.filter(previewable).map((m) => [m.id, linksIn(m.body)]));
  const hashes = [...new Set([...links.values()].flat().map(urlHash))];
  const out = new Map<number, LinkPreview[]>();
  if (!hashes.length) return out;
  const { db, schema } = getDb();
  const p = schema.linkPreviews;
  const rows = await db.select().from(p).where(inArray(p.urlHash, hashes));
  const byUrl = new Map(rows.filter((r) => r.state === "ok").map((r) => [r.url, r]));
  for (const [id, urls] of links) {
    const found = urls.flatMap((u) => {
      const r = byUrl.get(u);
      return r ? [{ url: r.url, title: r.title, description: r.description, image: r.image }] : [];
    });
    if (found.length) out.set(id, found);
  }
  return out;
}

/** The job: fetch (unless a fresh copy is stored) and store the preview, or that there is none. */
export async function refreshPreview(url: string, guard: FetchGuard = {}, now = Date.now()): Promise<FetchOutcome | { fresh: true; ok: boolean }> {
  const { db, schema } = getDb();
  const p = schema.linkPreviews;
  const hash = urlHash(url);
  const [stored] = await db.select({ fetchedAt: p.fetchedAt, state: p.state }).from(p).where(eq(p.urlHash, hash));
  if (stored && now - stored.fetchedAt < PREVIEW_TTL_MS) return { fresh: true, ok: stored.state === "ok" };
  const outcome = await fetchPreview(url, guard);
  const row = outcome.ok
    ? { state: "ok", title: outcome.preview.title, description: outcome.preview.description, image: outcome.preview.image }
    : { state: "none", title: "", description: "", image: "" };
  await db
    .insert(p)
    .values({ urlHash: hash, url, fetchedAt: now, ...row })
    .onConflictDoUpdate({ target: p.urlHash, set: { fetchedAt: now, ...row } });
  return outcome;
}

/** Drops previews nobody asked for in a week (a new message fetches its link again). */
export async function sweepPreviews(now = Date.now()) {
  const { db, schema } = getDb();
  await db.delete(schema.linkPreviews).where(lt(schema.linkPreviews.fetchedAt, now - 7 * PREVIEW_TTL_MS));
}

/** The conversation's open pages reload and show the preview (the message was shown before it existed). */
async function tellOpenPages(ticketId: number, url: string) {
  const { db, schema } = getDb();
  const t = schema.tickets;
  const [ticket] = await db.select({ id: t.id, ticketNumber: t.ticketNumber, departmentId: t.departmentId, kind: t.kind }).from(t).where(eq(t.id, ticketId));
  if (ticket) toOpenPages(ticket, SERVER_EVENTS.updateTicket, { linkPreview: url });
}

/** Called at server start (app/plugins/start.server.ts), before the job worker runs. */
export function defineLinkPreviewJob() {
  defineJobKind(PREVIEW_JOB, {
    // a page that does not answer now is not worth many tries: its message shows without a preview
    maxAttempts: 2,
    run: async (payload) => {
      const { url, ticketId } = payload as { url?: unknown; ticketId?: unknown };
      if (typeof url !== "string") return;
      const outcome = await refreshPreview(url);
      await sweepPreviews();
      if (outcome.ok && typeof ticketId === "number") await tellOpenPages(ticketId, url);
    },
  });
}
