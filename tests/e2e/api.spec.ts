// The JSON twins for clients: /api/auth2, /api/auth/check, /api/user/signout.
import { test, expect } from "@playwright/test";
import { PASSWORD } from "./helpers";

test("auth2 signs in, auth check answers the settings, signout ends the session", async ({ request }) => {
  const bad = await request.post("/api/auth2", { data: { client: "admin", password: "wrong", type: "admin" } });
  expect(bad.status()).toBe(403);
  expect(await bad.json()).toMatchObject({ result: "failed", description: "Invalid username or password." });

  const missing = await request.post("/api/auth2", { data: { client: "", password: "" } });
  expect(await missing.json()).toMatchObject({ result: "failed" });

  const ok = await request.post("/api/auth2", { data: { client: "admin", password: PASSWORD, type: "admin" } });
  const auth = await ok.json();
  expect(auth).toMatchObject({ result: "success", description: "" });
  expect(auth.token).toMatch(/^[\w-]{40,}$/);
  expect(auth.refresh_token).toMatch(/^[\w-]{40,}$/);

  const check = await (await request.post("/api/auth/check", { data: { _token: auth.token } })).json();
  expect(check).toMatchObject({
    result: "success",
    type: "admin",
    username: "admin",
    name: "Demo Admin",
    adminName: "Demo Admin",
    rank: 9999999,
    acw_seconds: 30,
    account_type: 1,
    version: { id: expect.any(Number), description: expect.any(String) },
    productDetails: { title: "OmniDesk" },
  });
  expect(check.productDetails.product_functions.map((f: { key: string }) => f.key)).toContain("tickets");

  // the refresh token buys a new token once; the old token stops working
  const refreshed = await (await request.post("/api/auth/check", { data: { _token: "stale", refresh_token: auth.refresh_token } })).json();
  expect(refreshed.result).toBe("success");
  expect(refreshed.token).not.toBe(auth.token);
  expect((await request.post("/api/auth/check", { data: { _token: auth.token } })).status()).toBe(403);

  const out = await request.delete(`/api/user/signout?_token=${refreshed.token}`);
  expect(await out.json()).toEqual({ result: "success" });
  const after = await request.post("/api/auth/check", { data: { _token: refreshed.token } });
  expect(after.status()).toBe(403);
  expect((await after.json()).result).toBe("failed");
});

test("auth check without a token is refused", async ({ request }) => {
  const res = await request.post("/api/auth/check", { data: {} });
  expect(res.status()).toBe(403);
});

test("security headers, compression and long-lived caching of build assets", async ({ request }) => {
  const page = await request.get("/", { headers: { "Accept-Encoding": "gzip" } });
  const headers = page.headers();
  expect(headers["content-security-policy"]).toContain("script-src 'self' 'nonce-");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["x-powered-by"]).toBeUndefined();
  const asset = (await page.text()).match(/\/build\/[^"]+\.js/)![0];
  const res = await request.get(asset, { headers: { "Accept-Encoding": "gzip" } });
  expect(res.headers()["cache-control"]).toContain("max-age=31536000");
  expect(res.headers()["cache-control"]).toContain("immutable");
  expect(res.headers()["content-encoding"]).toBe("gzip");
  expect((await request.get("/healthz")).status()).toBe(200);
});

test("a cross-origin form post is refused", async ({ request }) => {
  const res = await request.post("/?index", {
    form: { intent: "login", username: "admin", password: PASSWORD, type: "admin" },
    headers: { Origin: "http://evil.example" },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(403);
});
