// /files/v101/{message}/{name}: an attachment goes only to someone who may read its conversation,
// through the same gate as the conversation's page (its plugin on for the edition, no trial).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { createTestDb, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { loader } from "~/conversation/routes/file";
import { createSession } from "~/accounts/sessions.server";
import { sessionCookie } from "~/cookies.server";
import { findUserByUsername } from "~/accounts/users.server";
import { canRead } from "~/conversation/access.server";
import { fileStorage } from "~/storage.server";
import { listEditions, saveEdition } from "~/models/editions.server";
import { setSetting } from "~/models/settings.server";

let t: TestDb;
let readable: number; // a message with a file in a ticket the agent reads
let hidden: number; // one in a ticket the agent does not
const cookies: Record<string, string> = {};

async function get(messageId: number, auth: { cookie?: string; token?: string } = {}) {
  const query = auth.token ? `?_token=${auth.token}` : "";
  const request = new Request(`http://localhost/files/v101/${messageId}/a.txt${query}`, { headers: auth.cookie ? { Cookie: auth.cookie } : {} });
  try {
    return await loader({ request, params: { messageId: String(messageId), name: "a.txt" }, context: { cspNonce: "", clientIp: "127.0.0.1" } });
  } catch (thrown) {
    return thrown as Response;
  }
}

beforeAll(async () => {
  process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-files-"));
  t = await createTestDb("sqlite");
  await seedDemo(t.handle, { tickets: 30 });
  const { db, schema } = t.handle;
  const agent = (await findUserByUsername("agent"))!;
  for (const name of ["admin", "agent"]) cookies[name] = await sessionCookie().serialize((await createSession((await findUserByUsername(name))!.id)).token);
  const tickets = await db.select({ id: schema.tickets.id }).from(schema.tickets).where(eq(schema.tickets.kind, "ticket"));
  const reads = await Promise.all(tickets.map((x) => canRead(agent, x.id)));
  const key = await fileStorage().put(new TextEncoder().encode("secret plans"));
  const attach = async (ticketId: number) =>
    (
      await db
        .insert(schema.messages)
        .values({ ticketId, type: "file", body: "", fileKey: key, fileName: "a.txt", fileType: "text/plain", createdAt: Date.now() })
        .returning()
    )[0].id;
  readable = await attach(tickets[reads.indexOf(true)].id);
  hidden = await attach(tickets[reads.indexOf(false)].id);
});
afterAll(async () => t?.cleanup());

describe("attachments", () => {
  it("go to readers of the conversation (cookie or token), to nobody else", async () => {
    const ok = await get(readable, { cookie: cookies.agent });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("secret plans");
    expect((await get(hidden, { cookie: cookies.admin })).status).toBe(200);
    expect((await get(hidden, { cookie: cookies.agent })).status).toBe(403);
    const token = (await createSession((await findUserByUsername("agent"))!.id)).token;
    expect((await get(readable, { token })).status).toBe(200);
    expect((await get(hidden, { token })).status).toBe(403);
    // signed out: to the login form
    const stranger = await get(readable);
    expect(stranger.status).toBe(302);
    expect(stranger.headers.get("Location")).toBe("/");
    expect((await get(readable, { token: "not-a-session" })).status).toBe(302);
  });

  it("are not served where the conversation's plugin is off, nor on a trial account", async () => {
    const edition = (await listEditions()).find((e) => e.id === "default")!;
    await saveEdition(
      "default",
      edition.enabled.filter((p) => p !== "tickets"),
      edition.hosts,
    );
    expect((await get(readable, { cookie: cookies.admin })).status).toBe(404);
    await saveEdition("default", edition.enabled, edition.hosts);
    expect((await get(readable, { cookie: cookies.admin })).status).toBe(200);

    await setSetting("account_type", "0");
    expect((await get(readable, { cookie: cookies.admin })).status).toBe(403);
    expect((await get(readable, { cookie: cookies.agent })).status).toBe(403);
    await setSetting("account_type", "1");
    expect((await get(readable, { cookie: cookies.agent })).status).toBe(200);
  });
});
