// Link previews: a link to our own machine or network is never fetched (SSRF), whatever the name,
// the address's spelling or a redirect says; a page on a (test-allowed) server gives its preview,
// stored once and shown for every message that links to it, on both dialects.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import {
  fetchPreview,
  isPublicAddress,
  linksIn,
  parsePreview,
  previewsOf,
  queueLinkPreviews,
  refreshPreview,
  PREVIEW_JOB,
  defineLinkPreviewJob,
  urlHash,
  type FetchGuard,
} from "~/conversation/link-preview.server";
import { createJobWorker } from "~/jobs/queue.server";

/** A server on loopback that counts its requests and answers with `handler`. */
async function server(handler: http.RequestListener) {
  let hits = 0;
  const s = http.createServer((req, res) => {
    hits++;
    handler(req, res);
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  return { port, hits: () => hits, close: () => new Promise<void>((r) => s.close(() => r())) };
}

const PAGE = `<!doctype html><html><head><title>Fallback &amp; title</title>
<meta property="og:title" content="The &lt;b&gt;Title&lt;/b&gt; &amp; more">
<meta property="og:description" content='A "quoted" description'>
<meta property="og:image" content="/img/card.png">
<script>alert(1)</script></head><body>hello</body></html>`;

/** Test names resolve without DNS; "evil.test" points at loopback as a rebinding attacker's name would. */
const names: Record<string, string[]> = { "evil.test": ["127.0.0.1"], "mixed.test": ["93.184.216.34", "10.0.0.5"], "public.test": ["127.0.0.1"] };
const resolve = async (host: string) => (names[host] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
// the happy path's allowance: any address and port, given only here, as an argument
const loopbackAllowed: FetchGuard = { resolve, addressAllowed: () => true, portAllowed: () => true };

describe("which addresses a preview may come from", () => {
  it.each([
    "127.0.0.1",
    "127.1.2.3",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:10.0.0.1",
    "::ffff:192.168.1.1",
    "2002:7f00:1::1",
    "not an address",
  ])("refuses %s", (address) => expect(isPublicAddress(address)).toBe(false));

  it.each(["93.184.216.34", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("allows %s", (address) =>
    expect(isPublicAddress(address)).toBe(true),
  );
});

describe("the guarded fetch never calls inside", () => {
  let inside: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => {
    inside = await server((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(PAGE));
  });
  afterAll(async () => inside.close());

  it.each([
    ["a loopback address", () => `http://127.0.0.1:${inside.port}/`, "port"],
    ["loopback on port 80", () => "http://127.0.0.1/", "address"],
    ["localhost", () => "http://localhost/", "address"],
    ["a private address", () => "http://10.0.0.1/", "address"],
    ["a home-router address", () => "http://192.168.1.1/", "address"],
    ["IPv6 loopback", () => "http://[::1]/", "address"],
    ["IPv4-mapped loopback", () => "http://[::ffff:127.0.0.1]/", "address"],
    ["a name resolving to loopback", () => "http://evil.test/", "address"],
    ["a name resolving partly inside", () => "https://mixed.test/", "address"],
    ["another scheme", () => "file:///etc/passwd", "url"],
    ["an odd port", () => "http://93.184.216.34:8080/", "port"],
  ])("%s is refused", async (_name, url, reason) => {
    const before = inside.hits();
    // localhost resolves for real here (no internet needed); the rest through the test names
    const outcome = await fetchPreview(url(), url().includes("localhost") ? {} : { resolve });
    expect(outcome).toEqual({ ok: false, reason });
    expect(inside.hits()).toBe(before);
  });

  it("follows no redirect from an allowed server to loopback", async () => {
    const target = await server((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(PAGE));
    const hop = await server((_req, res) => res.writeHead(302, { Location: `http://127.0.0.1:${target.port}/secret` }).end());
    // the first server stands in for a public one: the guard allows its address once, as if public
    let allowances = 1;
    const outcome = await fetchPreview(`http://public.test:${hop.port}/`, {
      resolve,
      portAllowed: () => true,
      addressAllowed: (a) => (allowances-- > 0 ? true : isPublicAddress(a)),
    });
    expect(outcome).toEqual({ ok: false, reason: "address" });
    expect(hop.hits()).toBe(1);
    expect(target.hits()).toBe(0);
    await Promise.all([hop.close(), target.close()]);
  });
});

describe("a page's preview", () => {
  it("reads og:title, og:description and og:image as plain text, the <title> when og:title is missing", () => {
    expect(parsePreview(PAGE, "https://example.com/a/b")).toEqual({
      title: "The <b>Title</b> & more",
      description: 'A "quoted" description',
      image: "https://example.com/img/card.png",
    });
    expect(parsePreview("<title>Only &#x26; title</title><meta name=description content=plain>", "https://example.com/")).toEqual({
      title: "Only & title",
      description: "plain",
      image: "",
    });
    expect(parsePreview(`<meta property="og:image" content="javascript:alert(1)"><title>x</title>`, "https://example.com/").image).toBe("");
  });

  it("finds the first three links of a message, without trailing punctuation", () => {
    expect(linksIn("see https://a.example/x, and (http://b.example/y). https://a.example/x https://c.example https://d.example")).toEqual([
      "https://a.example/x",
      "http://b.example/y",
      "https://c.example",
    ]);
    expect(linksIn("no links, ftp://x.example")).toEqual([]);
  });

  it("follows up to three redirects, reads only the head of a huge page, and refuses what is not HTML", async () => {
    const pages = await server((req, res) => {
      const n = Number(req.url!.slice(1)) || 0;
      if (req.url === "/big") {
        res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
        res.write(`<html><head><title>Big one</title></head><body>`);
        res.end("x".repeat(3 * 1024 * 1024));
      } else if (req.url === "/json") res.writeHead(200, { "Content-Type": "application/json" }).end(`{"title":"no"}`);
      else if (n < 10) res.writeHead(301, { Location: `/${n + 1}` }).end();
      else res.writeHead(200, { "Content-Type": "text/html" }).end(PAGE);
    });
    const base = `http://127.0.0.1:${pages.port}`;
    expect(await fetchPreview(`${base}/7`, loopbackAllowed)).toMatchObject({ ok: true, preview: { title: "The <b>Title</b> & more" } });
    expect(await fetchPreview(`${base}/6`, loopbackAllowed)).toEqual({ ok: false, reason: "redirects" });
    expect(await fetchPreview(`${base}/big`, { ...loopbackAllowed, maxBytes: 64 * 1024 })).toMatchObject({ ok: true, preview: { title: "Big one" } });
    expect(await fetchPreview(`${base}/json`, loopbackAllowed)).toEqual({ ok: false, reason: "type" });
    await pages.close();
  });

  it("gives up on a name that does not resolve in time", async () => {
    const never = () => new Promise<never>(() => undefined);
    expect(await fetchPreview("https://slow.example/", { resolve: never, timeoutMs: 100 })).toEqual({ ok: false, reason: "timeout" });
  });

  it("gives up on a server that does not answer in time", async () => {
    const silent = await server(() => undefined);
    expect(await fetchPreview(`http://127.0.0.1:${silent.port}/`, { ...loopbackAllowed, timeoutMs: 200 })).toEqual({ ok: false, reason: "timeout" });
    silent.close();
  });
});

describe.each(DIALECTS)("stored previews on %s", (dialect) => {
  let t: TestDb;
  let site: Awaited<ReturnType<typeof server>>;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    site = await server((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end(PAGE));
  });
  afterAll(async () => {
    await site.close();
    await t?.cleanup();
  });

  it("queues one job per link in the message's transaction, fetches once, and shows it for every message linking there", async () => {
    const url = `http://127.0.0.1:${site.port}/page`;
    const { db, schema } = t.handle;
    await t.handle.transaction((tx) =>
      queueLinkPreviews(tx, 1, [
        { type: "text", body: `look ${url}` },
        { type: "text", body: `again ${url}.` },
        { type: "text/html", body: `<a href="http://elsewhere.example/">x</a> http://elsewhere.example/` },
      ]),
    );
    // the same link again in that conversation adds nothing; in another, that one hears of it too
    await t.handle.transaction((tx) => queueLinkPreviews(tx, 1, [{ type: "text", body: `once more ${url}` }]));
    await t.handle.transaction((tx) => queueLinkPreviews(tx, 2, [{ type: "text", body: `elsewhere ${url}` }]));
    const jobs = await db.select().from(schema.jobs).where(eq(schema.jobs.kind, PREVIEW_JOB));
    expect(jobs.map((j) => JSON.parse(j.payload))).toEqual([
      { url, ticketId: 1 },
      { url, ticketId: 2 },
    ]);

    const messages = [
      { id: 1, type: "text", body: `look ${url}` },
      { id: 2, type: "text", body: `again ${url}.` },
      { id: 3, type: "text", body: "no link" },
    ];
    expect((await previewsOf(messages)).size).toBe(0);
    expect(await refreshPreview(url, loopbackAllowed)).toMatchObject({ ok: true });
    const hits = site.hits();
    // fresh for a day: a second job does not fetch again
    expect(await refreshPreview(url, loopbackAllowed)).toEqual({ fresh: true, ok: true });
    expect(site.hits()).toBe(hits);
    const shown = await previewsOf(messages);
    expect([...shown.keys()]).toEqual([1, 2]);
    expect(shown.get(1)).toEqual([
      { url, title: "The <b>Title</b> & more", description: 'A "quoted" description', image: `${url.replace("/page", "")}/img/card.png` },
    ]);
  });

  it("the job, run by the queue's worker with the production guard, stores a private link as nothing to show", async () => {
    defineLinkPreviewJob();
    const url = "http://10.0.0.1/admin";
    await t.handle.transaction((tx) => queueLinkPreviews(tx, 3, [{ type: "text", body: `internal: ${url}` }]));
    await createJobWorker({ log: () => undefined }).runOnce();
    const { db, schema } = t.handle;
    const [job] = await db
      .select()
      .from(schema.jobs)
      .where(eq(schema.jobs.key, `link-preview:${urlHash(url)}:${Math.floor(Date.now() / 86_400_000)}:3`));
    expect(job.state).toBe("done");
    const [row] = await db.select().from(schema.linkPreviews).where(eq(schema.linkPreviews.url, url));
    expect(row).toMatchObject({ state: "none", title: "" });
  });

  it("remembers a refused link as nothing to show, without fetching it", async () => {
    const url = `http://127.0.0.1:${site.port}/inside`;
    const hits = site.hits();
    expect(await refreshPreview(url)).toEqual({ ok: false, reason: "port" });
    expect(site.hits()).toBe(hits);
    expect((await previewsOf([{ id: 9, type: "text", body: url }])).size).toBe(0);
    const [row] = await t.handle.db.select().from(t.handle.schema.linkPreviews).where(eq(t.handle.schema.linkPreviews.url, url));
    expect(row.state).toBe("none");
  });
});
