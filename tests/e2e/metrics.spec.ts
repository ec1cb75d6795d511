// The built server's /metrics (issue 24 item 4), scraped as Prometheus would with METRICS_TOKEN
// (playwright.config.ts sets it): refused without the token; request latency labelled by the route
// pattern, not the URL; the sockets and the job queue counted. Values: tests/unit/observability.test.ts.
import { test, expect } from "@playwright/test";
import { io } from "socket.io-client";
import { E2E_METRICS_TOKEN } from "../../playwright.config";
import { PASSWORD } from "./helpers";

const samples = (text: string, name: string) =>
  text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => {
      const [, labels, value] = /^\w+\{(.*)\} (\S+)$/.exec(line)!;
      return { labels: Object.fromEntries([...labels.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]])), value: Number(value) };
    });

test("/metrics answers only with the token, and labels requests by route pattern", async ({ baseURL, playwright }) => {
  const anonymous = await playwright.request.newContext({ baseURL });
  expect((await anonymous.get("/metrics")).status()).toBe(401);
  expect((await anonymous.get("/metrics", { headers: { Authorization: "Bearer nope" } })).status()).toBe(401);

  const api = await playwright.request.newContext({ baseURL, maxRedirects: 0 });
  const login = await api.post("/?index", { form: { intent: "login", username: "agent", password: PASSWORD, type: "agent" } });
  expect(login.status()).toBe(302);
  const page = await api.get("/ticket/100001?view=all", { headers: { "X-Request-Id": "e2e-metrics-1" } });
  expect(page.headers()["x-request-id"]).toBe("e2e-metrics-1");
  await api.get("/ticket/100002");
  const sid = (await api.storageState()).cookies.find((c) => c.name === "sid")!;
  const socket = io(baseURL!, { transports: ["websocket"], extraHeaders: { cookie: `sid=${sid.value}` }, reconnection: false });
  await new Promise<void>((resolve, reject) => socket.on("connect", resolve).on("connect_error", reject));

  const scrape = await anonymous.get("/metrics", { headers: { Authorization: `Bearer ${E2E_METRICS_TOKEN}` } });
  expect(scrape.status()).toBe(200);
  const text = await scrape.text();
  socket.close();

  const requests = samples(text, "omnidesk_http_request_duration_seconds_count");
  const ticketPages = requests.filter((s) => s.labels.route === "/ticket/:id" && s.labels.method === "GET");
  expect(ticketPages.reduce((n, s) => n + s.value, 0)).toBeGreaterThanOrEqual(2);
  // no ticket number, id or query string ever becomes a label
  // (an optional segment of a pattern, `:token?`, is not a query string)
  expect(requests.filter((s) => /\d{4,}|\?/.test(s.labels.route.replace(/:\w+\?/g, ":param")))).toEqual([]);
  expect(samples(text, "omnidesk_sockets").find((s) => s.labels.namespace === "/")!.value).toBeGreaterThanOrEqual(1);
  expect(text).toContain("# TYPE omnidesk_jobs_pending gauge");
  expect(text).toContain("# TYPE omnidesk_realtime_emit_seconds histogram");
  expect(text).toContain("process_resident_memory_bytes");
  await api.dispose();
  await anonymous.dispose();
});
