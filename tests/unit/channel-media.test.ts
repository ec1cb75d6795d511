// A customer's file is fetched only from the provider's file hosts (or the account's API address)
// and read no further than the provider's limit: tested against real servers on loopback.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RefusedFile, fetchProviderFile, providerFileAddress } from "@plugins/channels/media.server";

const HOSTS = ["fbcdn.net", "fbsbx.com"];

describe("a provider's file address", () => {
  it("is taken on the provider's file hosts over https, or on the account's API origin", () => {
    expect(providerFileAddress("https://scontent.xx.fbcdn.net/v/t1/photo.jpg?oh=1", HOSTS).host).toBe("scontent.xx.fbcdn.net");
    expect(providerFileAddress("https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=1", HOSTS).host).toBe("lookaside.fbsbx.com");
    expect(providerFileAddress("http://127.0.0.1:4100/files/1", HOSTS, "http://127.0.0.1:4100/v21.0").port).toBe("4100");
  });

  it.each([
    ["plain http on the CDN", "http://scontent.xx.fbcdn.net/photo.jpg"],
    ["a look-alike host", "https://fbcdn.net.example.com/photo.jpg"],
    ["a host ending in the name", "https://evilfbcdn.net/photo.jpg"],
    ["credentials in the address", "https://user:secret@scontent.fbcdn.net/photo.jpg"],
    ["the cloud's metadata service", "http://169.254.169.254/latest/meta-data/"],
    ["another port of the API's host", "http://127.0.0.1:4101/files/1"],
    ["not an address", "javascript:alert(1)"],
  ])("is refused for %s", (_why, address) => {
    expect(() => providerFileAddress(address, HOSTS, "http://127.0.0.1:4100/v21.0")).toThrow(RefusedFile);
  });
});

describe("fetching a customer's file", () => {
  let provider: http.Server;
  let inside: http.Server;
  let base = "";
  let insideBase = "";
  const insideHits: string[] = [];
  const failure = (response: Response) => new Error(`answered ${response.status}`);

  beforeAll(async () => {
    inside = http.createServer((req, res) => {
      insideHits.push(req.url ?? "");
      res.end("internal secret");
    });
    await new Promise<void>((resolve) => inside.listen(0, "127.0.0.1", resolve));
    insideBase = `http://127.0.0.1:${(inside.address() as AddressInfo).port}`;
    provider = http.createServer((req, res) => {
      if (req.url === "/small") return res.end(Buffer.alloc(500, 1));
      // no Content-Length: the size shows only while reading
      if (req.url === "/streamed-big") {
        res.write(Buffer.alloc(800, 1));
        res.write(Buffer.alloc(800, 1));
        return res.end();
      }
      if (req.url === "/declared-big") {
        res.writeHead(200, { "Content-Length": "5000" });
        return res.end(Buffer.alloc(5000, 1));
      }
      if (req.url === "/moved") {
        res.writeHead(302, { Location: "/small" });
        return res.end();
      }
      if (req.url === "/away") {
        res.writeHead(302, { Location: `${insideBase}/secret` });
        return res.end();
      }
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    provider.close();
    inside.close();
  });

  const get = (path: string) => fetchProviderFile(`${base}${path}`, { hosts: HOSTS, apiBase: `${base}/v21.0`, maxBytes: 1000, failure });

  it("reads a file within the limit, following a redirect that stays on an allowed address", async () => {
    expect((await get("/small")).bytes.length).toBe(500);
    expect((await get("/moved")).bytes.length).toBe(500);
  });

  it("stops reading at the limit, whether the size is declared or only streamed", async () => {
    await expect(get("/declared-big")).rejects.toThrow(RefusedFile);
    await expect(get("/streamed-big")).rejects.toThrow(/over 1000 bytes/);
  });

  it("never follows a redirect off the allowed addresses, and a failing answer is tried again later", async () => {
    await expect(get("/away")).rejects.toThrow(RefusedFile);
    expect(insideHits).toEqual([]);
    const missing = get("/missing");
    await expect(missing).rejects.toThrow("answered 404");
    await expect(missing).rejects.not.toBeInstanceOf(RefusedFile);
  });
});
