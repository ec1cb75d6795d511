// A stand-in Web Push service (RFC 8030): answers POST /push/<id> over HTTPS (a self-signed
// certificate made with openssl) as told (201, 410, 429, 500...), after checking what web-push
// sends: Authorization "vapid t=<JWT ES256>, k=<public key>" (RFC 8292) with the JWT's audience
// this origin, Content-Encoding aes128gcm, a TTL and an encrypted body.
import https from "node:https";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import type { AddressInfo } from "node:net";

export interface PushReceived {
  id: string;
  authorization: string;
  encoding: string;
  ttl: string;
  bytes: number;
  /** The JWT's claims (aud, exp, sub) and the key the header named. */
  claims: { aud?: string; exp?: number; sub?: string };
  key: string;
  valid: boolean;
}

export async function startPushStandin() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "push-standin-"));
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      path.join(dir, "key.pem"),
      "-out",
      path.join(dir, "cert.pem"),
    ],
    { stdio: "ignore" },
  );
  const cert = fs.readFileSync(path.join(dir, "cert.pem"));
  const key = fs.readFileSync(path.join(dir, "key.pem"));
  const received: PushReceived[] = [];
  /** What to answer next per subscription id (default 201). */
  const answers = new Map<string, number[]>();
  const server = https.createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const id = (req.url ?? "").replace(/^\/push\//, "");
      const authorization = String(req.headers.authorization ?? "");
      const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization);
      let claims: PushReceived["claims"] = {};
      let header: { alg?: string } = {};
      if (match) {
        const [h, c] = match[1].split(".");
        try {
          header = JSON.parse(Buffer.from(h, "base64url").toString());
          claims = JSON.parse(Buffer.from(c, "base64url").toString());
        } catch {
          /* not valid */
        }
      }
      const valid =
        !!match &&
        header.alg === "ES256" &&
        claims.aud === `https://127.0.0.1:${port()}` &&
        typeof claims.exp === "number" &&
        claims.exp * 1000 > Date.now() &&
        req.headers["content-encoding"] === "aes128gcm" &&
        !!req.headers.ttl &&
        Buffer.concat(chunks).length > 0;
      received.push({
        id,
        authorization,
        encoding: String(req.headers["content-encoding"] ?? ""),
        ttl: String(req.headers.ttl ?? ""),
        bytes: Buffer.concat(chunks).length,
        claims,
        key: match?.[2] ?? "",
        valid,
      });
      if (!valid) {
        res.writeHead(401).end();
        return;
      }
      const status = answers.get(id)?.shift() ?? 201;
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = () => (server.address() as AddressInfo).port;
  return {
    url: (id: string) => `https://127.0.0.1:${port()}/push/${id}`,
    agent: new https.Agent({ ca: cert }),
    received,
    /** The next answers for a subscription, in order. */
    answer: (id: string, ...statuses: number[]) => answers.set(id, statuses),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
