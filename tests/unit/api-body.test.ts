// The JSON twins' bodies (readBody) have a size limit: over it the answer is 413 with the reason,
// before the body is read when its length is declared, and as soon as it grows past it otherwise.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { MAX_API_BODY_BYTES, readBody } from "~/api.server";
import { action as priorityAction } from "~/conversation/routes/api.priority";
import { createSession } from "~/accounts/sessions.server";

const encoder = new TextEncoder();

/** A body as a stream that counts what the reader pulled (64 KB at a time, nothing ahead). */
function streamed(text: string, chunk = 64 * 1024) {
  const bytes = encoder.encode(text);
  const read = { bytes: 0 };
  let at = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        const piece = bytes.slice(at, at + chunk);
        at += piece.length;
        read.bytes += piece.length;
        controller.enqueue(piece);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, read };
}

const post = (body: ReadableStream<Uint8Array> | string, type: string, headers: Record<string, string> = {}) =>
  new Request("http://localhost/api/ticket/priority", { method: "POST", body, headers: { "Content-Type": type, ...headers }, duplex: "half" } as RequestInit);

async function refusal(run: () => Promise<unknown>) {
  try {
    await run();
    return undefined;
  } catch (thrown) {
    return thrown as Response;
  }
}

const big = (size: number) => JSON.stringify({ _token: "x", padding: "a".repeat(size) });

describe("readBody", () => {
  it("reads JSON and form bodies under the limit", async () => {
    expect(await readBody(post(JSON.stringify({ id: 5, priority: "H" }), "application/json"))).toEqual({ id: 5, priority: "H" });
    expect(await readBody(post("id=5&priority=H", "application/x-www-form-urlencoded"))).toEqual({ id: "5", priority: "H" });
    expect(await readBody(post("not json", "application/json"))).toEqual({});
  });

  it("refuses a declared length over the limit with 413 and the reason, before reading a byte", async () => {
    const { body, read } = streamed(big(10));
    const response = await refusal(() => readBody(post(body, "application/json", { "Content-Length": String(MAX_API_BODY_BYTES + 1) })));
    expect(response?.status).toBe(413);
    expect(await response!.json()).toEqual({ result: "failed", description: "The request is too large: at most 1 MB in all." });
    expect(read.bytes).toBe(0);
  });

  it("stops reading a JSON or form body that grows past the limit (no length declared)", async () => {
    for (const [text, type] of [
      [big(5 * MAX_API_BODY_BYTES), "application/json"],
      [`id=5&padding=${"a".repeat(5 * MAX_API_BODY_BYTES)}`, "application/x-www-form-urlencoded"],
    ]) {
      const { body, read } = streamed(text);
      const response = await refusal(() => readBody(post(body, type)));
      expect(response?.status, type).toBe(413);
      expect(read.bytes, type).toBeLessThan(MAX_API_BODY_BYTES + 256 * 1024);
    }
  });
});

describe("a JSON twin behind readBody", () => {
  let t: TestDb;
  let token: string;
  beforeAll(async () => {
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 1 });
    token = (await createSession(1)).token;
  });
  afterAll(async () => t?.cleanup());

  it("answers 413 for an oversized body and still works for a normal one", async () => {
    const context = { cspNonce: "", clientIp: "127.0.0.1" };
    const oversized = await refusal(() =>
      priorityAction({
        request: post(JSON.stringify({ _token: token, id: 1, priority: "H", padding: "a".repeat(2 * MAX_API_BODY_BYTES) }), "application/json"),
        params: {},
        context,
      }),
    );
    expect(oversized?.status).toBe(413);
    const ok = await priorityAction({ request: post(JSON.stringify({ _token: token, id: 1, priority: "H" }), "application/json"), params: {}, context });
    expect(await ok.json()).toEqual({ result: "success" });
  });
});
