// Small streamed bodies reach compression whole (so it skips them); big ones are compressed; a
// streamed page's first chunk is not held back until the end.
import http from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import compression from "compression";
import { afterAll, beforeAll, expect, test } from "vitest";
import { wholeSmallBodies } from "~/ops/whole-small-bodies.server";

let server: http.Server;
let base: string;
let releaseSlow: () => void = () => undefined;

beforeAll(async () => {
  const app = express();
  app.use(compression());
  app.use(wholeSmallBodies());
  // as Remix's adapter sends a body: headers, one write per chunk, then end in a later turn
  app.get("/small", async (_req, res) => {
    res.setHeader("Content-Type", "application/json");
    res.write(new TextEncoder().encode(JSON.stringify({ result: "success", id: 1 })));
    await Promise.resolve();
    res.end();
  });
  app.get("/big", async (_req, res) => {
    res.setHeader("Content-Type", "application/json");
    res.write(new TextEncoder().encode(JSON.stringify({ rows: "x".repeat(5000) })));
    await Promise.resolve();
    res.end();
  });
  app.get("/slow", (_req, res) => {
    res.setHeader("Content-Type", "text/html");
    res.write("<!DOCTYPE html><p>shell</p>");
    (res as unknown as { flush: () => void }).flush(); // as Remix's adapter does after each write
    releaseSlow = () => res.end("<p>rest</p>");
  });
  server = app.listen(0);
  await new Promise((r) => server.once("listening", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = (path: string) => fetch(`${base}${path}`, { headers: { "Accept-Encoding": "gzip" } });

test("a small streamed JSON answer goes out uncompressed", async () => {
  const res = await get("/small");
  expect(res.headers.get("content-encoding")).toBeNull();
  expect(await res.json()).toEqual({ result: "success", id: 1 });
});

test("a big body is still compressed", async () => {
  const res = await get("/big");
  expect(res.headers.get("content-encoding")).toBe("gzip");
  expect(((await res.json()) as { rows: string }).rows).toHaveLength(5000);
});

test("a streamed page's first chunk reaches the browser before the page ends", async () => {
  const res = await get("/slow");
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  while (!seen.includes("shell")) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  expect(seen).toContain("shell");
  expect(seen).not.toContain("rest");
  releaseSlow();
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    seen += decoder.decode(value, { stream: true });
  }
  expect(seen).toContain("<p>rest</p>");
});
