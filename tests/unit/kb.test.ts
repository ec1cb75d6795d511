// The knowledge base on both dialects: articles made and edited by admins only (each save keeps
// the previous version, a restore brings one back and is itself a version), Markdown rendered
// without scripts, full-text search finding a word of the body (and of Chinese text), internal
// articles kept off the public pages and their search, and images over the limit refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { createArticle, getPublicArticle, listArticles, listVersions, restoreVersion, updateArticle, getArticle } from "@plugins/kb/kb.server";
import { searchIds } from "@plugins/kb/search.server";
import { plainText, renderMarkdown } from "@plugins/kb/render.server";
import { IMAGE_MAX_BYTES, publicPath } from "@plugins/kb/limits";
import { fitEncoded, kbPanel } from "@plugins/kb/panel.server";
import { permissionsOf } from "~/accounts/users.server";

const base = { type: "kb", lang: "en", category: "Billing", summary: "", visibility: "public" };

describe("rendering", () => {
  it("renders Markdown and drops scripts, handlers and javascript: links", () => {
    const html = renderMarkdown(
      '# Hello\n\n<script>alert(1)</script>\n\n**bold** [x](javascript:alert(2)) <img src="x" onerror="alert(3)"> <a href="https://example.com" onclick="evil()">ok</a>',
    );
    expect(html).toContain("<h1>Hello</h1>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).not.toMatch(/<script|alert\(1\)|onerror|onclick|javascript:/i);
    expect(html).toContain('href="https://example.com"');
  });
  it("gives the plain text of an article", () => {
    expect(plainText("# Reset\n\nPress **Forgot** & wait.\n\n<script>x()</script>")).toBe("Reset\n\nPress Forgot & wait.");
  });
  it("cuts a draft to fit a link", () => {
    const long = "退".repeat(5000);
    const cut = fitEncoded(long, 6000);
    expect(encodeURIComponent(cut).length).toBeLessThanOrEqual(6000);
    expect(cut.endsWith("…")).toBe(true);
    expect(fitEncoded("short", 6000)).toBe("short");
  });
  it("builds the public address with the title as the question", () => {
    expect(publicPath({ id: 7, type: "kb", lang: "en", title: "How do I reset my password?" })).toBe("/support/kb/en/7/how-do-i-reset-my-password");
  });
});

describe.each(DIALECTS)("knowledge base (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
  }, 60_000);
  afterAll(async () => t?.cleanup());

  it("lets only admins write, and keeps every earlier version", async () => {
    const refused = await createArticle(agent, { ...base, title: "Nope", body: "x" });
    expect(refused).toMatchObject({ ok: false, status: 403 });
    const blank = await createArticle(admin, { ...base, title: " ", body: "" });
    expect(blank.ok).toBe(false);
    if (!blank.ok) expect(blank.result.errors).toEqual({ title: "plugin_kb.errors.titleRequired", body: "plugin_kb.errors.bodyRequired" });

    const made = await createArticle(admin, { ...base, title: "Refund policy", body: "Refunds take 5 days." });
    expect(made.ok).toBe(true);
    const id = made.ok ? made.id : 0;
    expect(await updateArticle(admin, id, { ...base, title: "Refund policy", body: "Refunds take 3 days.", version: "1" })).toEqual({ ok: true, id });
    // an editor who started from version 1 does not overwrite version 2 unseen
    const stale = await updateArticle(admin, id, { ...base, title: "Refund policy", body: "Stale", version: "1" });
    expect(stale).toMatchObject({ ok: false, status: 409 });
    expect(await updateArticle(admin, id, { ...base, title: "Refund policy (new)", body: "Refunds take 1 day.", version: "2" })).toMatchObject({ ok: true });

    const versions = await listVersions(id);
    expect(versions.map((v) => [v.version, v.body])).toEqual([
      [2, "Refunds take 3 days."],
      [1, "Refunds take 5 days."],
    ]);
    expect(await restoreVersion(agent, id, 1)).toMatchObject({ ok: false, status: 403 });
    expect(await restoreVersion(admin, id, 1)).toMatchObject({ ok: true });
    const now = await getArticle(id);
    expect(now).toMatchObject({ version: 4, body: "Refunds take 5 days.", title: "Refund policy" });
    expect((await listVersions(id)).map((v) => v.version)).toEqual([3, 2, 1]);
    expect(await restoreVersion(admin, id, 99)).toMatchObject({ ok: false, status: 404 });
  });

  it("finds articles by a word of the body, kept in step on edit", async () => {
    const a = await createArticle(admin, { ...base, title: "Shipping times", body: "Parcels travel by **zeppelin** across the sea." });
    const b = await createArticle(admin, { ...base, lang: "zh", title: "退货政策", body: "退货需要在三十天内办理。" });
    const id = a.ok ? a.id : 0;
    expect(await searchIds("zeppelin")).toEqual([id]);
    expect(await searchIds("Zeppel")).toEqual([id]); // a prefix, any case
    expect(await searchIds("zeppelin shipping")).toEqual([id]);
    expect(await searchIds("zeppelin refund")).toEqual([]);
    expect(await searchIds("三十天")).toEqual([b.ok ? b.id : 0]);
    expect(await searchIds('"*)(')).toEqual([]);
    await updateArticle(admin, id, { ...base, title: "Shipping times", body: "Parcels travel by airship." });
    expect(await searchIds("zeppelin")).toEqual([]);
    expect(await searchIds("airship")).toEqual([id]);
    const listed = await listArticles({ q: "airship", includeInternal: false });
    expect(listed.articles.map((x) => x.title)).toEqual(["Shipping times"]);
  });

  it("keeps internal articles off the public pages and their search", async () => {
    const made = await createArticle(admin, { ...base, visibility: "internal", title: "Escalation secrets", body: "Call the duty manager quokka." });
    const id = made.ok ? made.id : 0;
    expect(await getPublicArticle(id, "kb", "en")).toBeUndefined();
    expect((await listArticles({ q: "quokka", includeInternal: false })).articles).toEqual([]);
    expect((await listArticles({ q: "quokka", includeInternal: true })).articles.map((x) => x.id)).toEqual([id]);
    expect((await listArticles({ type: "kb", lang: "en", includeInternal: false })).articles.map((x) => x.id)).not.toContain(id);
    const pub = await createArticle(admin, { ...base, title: "Opening hours", body: "We open at nine." });
    expect(await getPublicArticle(pub.ok ? pub.id : 0, "kb", "en")).toBeTruthy();
    expect(await getPublicArticle(pub.ok ? pub.id : 0, "manual", "en")).toBeUndefined();
  });

  it("offers found articles in the conversation panel, with their text and public link to insert", async () => {
    const made = await createArticle(admin, { ...base, title: "Warranty terms", body: "Our **wombat** warranty lasts a year." });
    const id = made.ok ? made.id : 0;
    const viewer = { type: "agent" as const, permissions: permissionsOf(agent), clientId: 1, plan: 4, variant: "default" as const };
    const ticket = { id: 1, ticketNumber: 100001, kind: "ticket", channel: "EMAIL", departmentId: agent.departmentId };
    const input = (q: string, kind = "ticket") => ({
      ticket: { ...ticket, kind },
      reader: agent,
      viewer,
      searchParams: new URLSearchParams({ kbq: q }),
      origin: "https://help.example",
    });
    const section = (await kbPanel(input("wombat")))!;
    expect(section.search).toMatchObject({ name: "kbq", value: "wombat" });
    expect(section.items).toHaveLength(1);
    const link = `https://help.example${publicPath({ id, type: "kb", lang: "en", title: "Warranty terms" })}`;
    expect(section.items[0]!.actions!.map((a) => a.insert)).toEqual(["Our wombat warranty lasts a year.", link]);
    expect(new URLSearchParams(section.items[0]!.actions![0]!.href.slice(1).split("#")[0]).get("draft")).toBe("Our wombat warranty lasts a year.");
    // the same overlay on live chat and call pages; none in a workspace chat
    for (const kind of ["livechat", "call"])
      expect((await kbPanel(input("wombat", kind)))!.items.map((i) => i.actions!.map((a) => a.insert))).toEqual([["Our wombat warranty lasts a year.", link]]);
    expect(await kbPanel(input("wombat", "chat"))).toBeNull();
    expect(await kbPanel({ ...input("wombat"), viewer: { ...viewer, permissions: [...viewer.permissions, "hide_case"] } })).toBeNull();
    expect((await kbPanel(input("")))!.items).toEqual([]);
  });

  it("refuses an image over the limit and stores one within it", async () => {
    const big = await createArticle(admin, { ...base, title: "Big", body: "x" }, { name: "big.png", type: "image/png", size: 10 * 1024 * 1024 });
    expect(big).toMatchObject({ ok: false, status: 413 });
    if (!big.ok) expect(big.result.errors).toEqual({ image: "plugin_kb.errors.imageTooLarge" });
    const bytes = new Uint8Array([137, 80, 78, 71]);
    const ok = await createArticle(admin, { ...base, title: "Small", body: "See:" }, { name: "shot.png", type: "image/png", size: 4, bytes });
    expect(ok.ok).toBe(true);
    const body = (await getArticle(ok.ok ? ok.id : 0))!.body;
    expect(body).toMatch(/^See:\n\n!\[shot\.png\]\(\/support\/image\/\d+\)$/);
    expect(IMAGE_MAX_BYTES).toBeLessThan(10 * 1024 * 1024);
  });
});
