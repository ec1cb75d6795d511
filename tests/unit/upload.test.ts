// Multipart bodies: a total size limit checked before and while reading, and the caller's
// access check before the first file is read (so strangers cannot make the server buffer files).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { BodyTooLarge, FormRefused, MAX_BODY_BYTES, readReplyForm } from "~/conversation/upload.server";
import { action as replyAction } from "~/conversation/routes/api.reply";
import { createSession } from "~/accounts/sessions.server";
import { csrfToken } from "~/csrf.server";
import { action as newTicketAction } from "@plugins/tickets/routes/new-ticket";
import { findUserByUsername } from "~/accounts/users.server";

const BOUNDARY = "----omnidesk-test";
const encoder = new TextEncoder();

/** A multipart body as a stream that counts what the reader pulled. */
function multipart(parts: ({ name: string; value: string } | { name: string; file: string; bytes: number })[], chunk = 64 * 1024) {
  const pieces: Uint8Array[] = [];
  for (const p of parts) {
    if ("value" in p) pieces.push(encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n${p.value}\r\n`));
    else {
      pieces.push(
        encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.file}"\r\nContent-Type: text/plain\r\n\r\n`),
      );
      for (let left = p.bytes; left > 0; left -= chunk) pieces.push(new Uint8Array(Math.min(chunk, left)).fill(97));
      pieces.push(encoder.encode("\r\n"));
    }
  }
  pieces.push(encoder.encode(`--${BOUNDARY}--\r\n`));
  const read = { bytes: 0, total: pieces.reduce((a, p) => a + p.length, 0) };
  let i = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (i >= pieces.length) return controller.close();
        read.bytes += pieces[i].length;
        controller.enqueue(pieces[i++]);
      },
    },
    { highWaterMark: 0 },
  ); // nothing is pulled before someone reads
  return { body, read };
}

const post = (url: string, body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  new Request(url, {
    method: "POST",
    body,
    headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
    duplex: "half",
  } as RequestInit);

describe("reading a form with attachments", () => {
  it("refuses a body whose declared length is over the limit before reading a byte", async () => {
    const { body, read } = multipart([{ name: "message", value: "hi" }]);
    const request = post("http://x/api/upload", body, { "Content-Length": String(MAX_BODY_BYTES + 1) });
    await expect(readReplyForm(request)).rejects.toBeInstanceOf(BodyTooLarge);
    expect(read.bytes).toBe(0);
  });

  it("stops reading a body that grows past the limit (no length declared)", async () => {
    const { body, read } = multipart([{ name: "attachment", file: "a.txt", bytes: 2_000_000 }]);
    await expect(readReplyForm(post("http://x/api/upload", body), { limit: 500_000 })).rejects.toBeInstanceOf(BodyTooLarge);
    expect(read.bytes).toBeLessThan(read.total);
  });

  it("asks the caller before the first file, with the fields sent so far, and stops when refused", async () => {
    const seen: Record<string, string>[] = [];
    const refused = multipart([
      { name: "_token", value: "nope" },
      { name: "attachment", file: "a.txt", bytes: 2_000_000 },
    ]);
    const refuse = async (fields: Map<string, string>) => (seen.push(Object.fromEntries(fields)), false);
    await expect(readReplyForm(post("http://x/api/upload", refused.body), { beforeFiles: refuse })).rejects.toBeInstanceOf(FormRefused);
    expect(seen).toEqual([{ _token: "nope" }]);
    expect(refused.read.bytes).toBeLessThan(refused.read.total);

    const allowed = multipart([
      { name: "_token", value: "yes" },
      { name: "attachment", file: "a.txt", bytes: 1000 },
      { name: "attachment", file: "b.txt", bytes: 10 },
    ]);
    let asked = 0;
    const parsed = await readReplyForm(post("http://x/api/upload", allowed.body), { beforeFiles: async () => (asked++, true) });
    expect(asked).toBe(1);
    expect(parsed.files.map((f) => [f.name, f.size])).toEqual([
      ["a.txt", 1000],
      ["b.txt", 10],
    ]);
    expect(parsed.form.get("_token")).toBe("yes");
  });
});

/** The route's answer, returned or thrown (Remix answers both). */
const upload = (request: Request) =>
  replyAction({ request, params: {}, context: { cspNonce: "", clientIp: "127.0.0.1" } }).catch((thrown: unknown) => thrown as Response);

describe("POST /api/upload", () => {
  let t: TestDb;
  let token: string;
  beforeAll(async () => {
    // the accepted upload is stored: under a temporary folder, not the working copy's data/
    process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-upload-"));
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 3, now: Date.now() });
    token = (await createSession((await findUserByUsername("admin"))!.id)).token;
  });
  afterAll(async () => t?.cleanup());

  it("refuses a stranger before reading their file", async () => {
    const { body, read } = multipart([
      { name: "_token", value: "not-a-session" },
      { name: "ticket_id", value: "1" },
      { name: "attachment", file: "a.txt", bytes: 5_000_000 },
    ]);
    const response = await upload(post("http://x/api/upload", body));
    expect(response.status).toBe(403);
    expect(read.bytes).toBeLessThan(1_000_000);
    // a token in the query is checked before the body is touched at all
    const query = multipart([{ name: "attachment", file: "a.txt", bytes: 10 }]);
    expect((await upload(post("http://x/api/upload?_token=nope", query.body))).status).toBe(403);
    expect(query.read.bytes).toBe(0);
  });

  it("answers 413 with a clear message for a body over the limit, before reading it", async () => {
    const { body, read } = multipart([{ name: "_token", value: token }]);
    const response = await upload(post("http://x/api/upload", body, { "Content-Length": String(MAX_BODY_BYTES + 1) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ result: "failed", description: `The request is too large: at most ${MAX_BODY_BYTES / 1024 / 1024} MB in all.` });
    expect(read.bytes).toBe(0);
  });

  it("still takes an upload with the token in the form", async () => {
    const { body } = multipart([
      { name: "_token", value: token },
      { name: "ticket_id", value: "1" },
      { name: "attachment", file: "a.txt", bytes: 5 },
    ]);
    const response = await upload(post("http://x/api/upload", body));
    expect(await response.json()).toMatchObject({ result: "success", fileName: "a.txt" });
  });
});

describe("POST /new_ticket/{token}", () => {
  let t: TestDb;
  let cookie: string;
  let csrf: string;
  beforeAll(async () => {
    process.env.DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-upload-"));
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 0, now: Date.now() });
    const made = await csrfToken(new Request("http://localhost/new_ticket/demo"));
    csrf = made.token;
    cookie = made.setCookie!.split(";")[0];
  });
  afterAll(async () => t?.cleanup());

  const send = (body: ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
    newTicketAction({
      request: post("http://localhost/new_ticket/demo", body, { Host: "localhost", ...headers }),
      params: { token: "demo" },
      context: { cspNonce: "", clientIp: "127.0.0.1" },
    }).catch((thrown: unknown) => thrown as Response);

  it("refuses a post without the form token's cookie, or with a wrong token, before reading the file", async () => {
    const parts = (token: string) =>
      multipart([
        { name: "_token", value: token },
        { name: "name", value: "A" },
        { name: "attachment", file: "a.txt", bytes: 5_000_000 },
      ]);
    const bare = parts(csrf);
    const noCookie = await send(bare.body);
    expect(noCookie.status).toBe(403);
    expect((await noCookie.json()).message).toBe("newTicket.expired");
    expect(bare.read.bytes).toBe(0);
    const forged = parts("x".repeat(43));
    expect((await send(forged.body, { Cookie: cookie })).status).toBe(403);
    expect(forged.read.bytes).toBeLessThan(1_000_000);
  });

  it("answers 413 with the form's message for a body over the limit, before reading it", async () => {
    const { body, read } = multipart([{ name: "_token", value: csrf }]);
    const response = await send(body, { Cookie: cookie, "Content-Length": String(MAX_BODY_BYTES + 1) });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ message: "conversation.bodyTooLarge", messageValues: { size: String(MAX_BODY_BYTES / 1024 / 1024) } });
    expect(read.bytes).toBe(0);
  });

  it("still opens a ticket with a file", async () => {
    const { body } = multipart([
      { name: "_token", value: csrf },
      { name: "name", value: "Ann" },
      { name: "email", value: "ann@example.com" },
      { name: "subject", value: "Kettle" },
      { name: "message", value: "Broken" },
      { name: "attachment", file: "a.txt", bytes: 5 },
    ]);
    const response = await send(body, { Cookie: cookie });
    expect(response.status).toBe(302);
  });
});
