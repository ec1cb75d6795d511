// A stand-in for Firebase Cloud Messaging's HTTP v1 API and Google's OAuth2 token endpoint, on
// 127.0.0.1 (plain HTTP: FCM_ENDPOINT and the account's token_uri point here).
//
// POST /token takes the JWT bearer grant (RFC 7523): grant_type urn:ietf:params:oauth:grant-type:
// jwt-bearer and an assertion that must verify RS256 against the test service account's public
// key, with iss its client_email, aud this token_uri, the firebase.messaging scope, and at most an
// hour between iat and exp. It answers {access_token, expires_in, token_type: "Bearer"}.
// POST /v1/projects/<project>/messages:send needs "Bearer <a token it issued, not revoked>" (else
// 401 UNAUTHENTICATED) and a message with a token; it answers {name} or, when told, FCM's error
// shapes: UNREGISTERED (404), INVALID_ARGUMENT on message.token (400), QUOTA_EXCEEDED (429) and
// UNAVAILABLE (503) with an optional Retry-After, INTERNAL (500).
import http from "node:http";
import { generateKeyPairSync } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createPublicKey } from "node:crypto";
import { jwtVerify } from "jose";

export type FcmAnswer = { error: "UNREGISTERED" | "INVALID_TOKEN" | "INTERNAL" } | { error: "QUOTA_EXCEEDED" | "UNAVAILABLE"; retryAfter?: string };

export interface FcmSent {
  project: string;
  authorization: string;
  message: Record<string, unknown> & { token?: string };
  /** What it answered: the HTTP status. */
  status: number;
}

export interface TokenGrant {
  claims: Record<string, unknown>;
  header: Record<string, unknown>;
  accessToken: string;
}

/** A test service account: a fresh RSA key pair, its JSON pointing at the stand-in. */
export function makeServiceAccount(tokenUri: string, projectId = "omnidesk-test") {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    json: {
      type: "service_account",
      project_id: projectId,
      private_key_id: "test-key-1",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      client_email: `omnidesk@${projectId}.iam.gserviceaccount.com`,
      client_id: "1234567890",
      token_uri: tokenUri,
    },
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

export async function startFcmStandin(options: { projectId?: string } = {}) {
  const projectId = options.projectId ?? "omnidesk-test";
  let account: ReturnType<typeof makeServiceAccount> | undefined;
  const grants: TokenGrant[] = [];
  const refusedGrants: string[] = [];
  const sent: FcmSent[] = [];
  const valid = new Set<string>();
  /** What to answer next per device token (default: sent). */
  const answers = new Map<string, FcmAnswer[]>();
  const state = { expiresIn: 3600 };

  const reply = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "Content-Type": "application/json; charset=UTF-8", ...headers });
    res.end(JSON.stringify(body));
  };
  const fcmError = (code: number, status: string, message: string, details: unknown[] = []) => ({ error: { code, message, status, details } });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => void handle(req, res, Buffer.concat(chunks).toString("utf8")));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "POST" && url.pathname === "/token") {
      const form = new URLSearchParams(raw);
      const refuse = (why: string) => {
        refusedGrants.push(why);
        reply(res, 400, { error: "invalid_grant", error_description: why });
      };
      if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return refuse("unsupported grant_type");
      if (!account) return refuse("no service account");
      try {
        const { payload, protectedHeader } = await jwtVerify(form.get("assertion") ?? "", createPublicKey(account.publicKeyPem), {
          algorithms: ["RS256"],
          issuer: account.json.client_email,
          audience: account.json.token_uri,
        });
        if (payload.scope !== "https://www.googleapis.com/auth/firebase.messaging") return refuse(`wrong scope ${String(payload.scope)}`);
        if (typeof payload.iat !== "number" || typeof payload.exp !== "number" || payload.exp - payload.iat > 3600) return refuse("bad lifetime");
        const accessToken = `ya29.test-${grants.length + 1}`;
        valid.add(accessToken);
        grants.push({ claims: payload, header: protectedHeader as Record<string, unknown>, accessToken });
        return reply(res, 200, { access_token: accessToken, expires_in: state.expiresIn, token_type: "Bearer" });
      } catch (error) {
        return refuse(`Invalid JWT Signature: ${(error as Error).message}`);
      }
    }
    const send = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(url.pathname);
    if (req.method === "POST" && send) {
      const authorization = String(req.headers.authorization ?? "");
      const record = (status: number, message: FcmSent["message"] = {}) => sent.push({ project: decodeURIComponent(send[1]), authorization, message, status });
      const bearer = /^Bearer (.+)$/.exec(authorization)?.[1];
      if (!bearer || !valid.has(bearer)) {
        record(401);
        return reply(res, 401, fcmError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token."));
      }
      let message: FcmSent["message"];
      try {
        message = (JSON.parse(raw) as { message: FcmSent["message"] }).message;
      } catch {
        record(400);
        return reply(res, 400, fcmError(400, "INVALID_ARGUMENT", "Invalid JSON payload received."));
      }
      if (decodeURIComponent(send[1]) !== projectId) {
        record(403, message);
        return reply(
          res,
          403,
          fcmError(403, "PERMISSION_DENIED", "SenderId mismatch", [
            { "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode: "SENDER_ID_MISMATCH" },
          ]),
        );
      }
      const token = typeof message?.token === "string" ? message.token : "";
      const answer = answers.get(token)?.shift();
      const fcm = (errorCode: string) => ({ "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", errorCode });
      if (!token || answer?.error === "INVALID_TOKEN") {
        record(400, message);
        return reply(
          res,
          400,
          fcmError(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token", [
            fcm("INVALID_ARGUMENT"),
            { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "message.token", description: "Invalid registration token" }] },
          ]),
        );
      }
      if (answer?.error === "UNREGISTERED") {
        record(404, message);
        return reply(res, 404, fcmError(404, "NOT_FOUND", "Requested entity was not found.", [fcm("UNREGISTERED")]));
      }
      if (answer?.error === "QUOTA_EXCEEDED" || answer?.error === "UNAVAILABLE") {
        const status = answer.error === "QUOTA_EXCEEDED" ? 429 : 503;
        record(status, message);
        return reply(
          res,
          status,
          fcmError(status, status === 429 ? "RESOURCE_EXHAUSTED" : "UNAVAILABLE", "Try again later.", [fcm(answer.error)]),
          answer.retryAfter !== undefined ? { "Retry-After": answer.retryAfter } : {},
        );
      }
      if (answer?.error === "INTERNAL") {
        record(500, message);
        return reply(res, 500, fcmError(500, "INTERNAL", "Internal error encountered.", [fcm("INTERNAL")]));
      }
      record(200, message);
      return reply(res, 200, { name: `projects/${projectId}/messages/${sent.length}` });
    }
    reply(res, 404, { error: { code: 404, message: "Not Found", status: "NOT_FOUND" } });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  account = makeServiceAccount(`${base}/token`, projectId);
  return {
    base,
    /** The service account whose key the token endpoint trusts (its JSON for FCM_SERVICE_ACCOUNT). */
    account: account.json,
    grants,
    refusedGrants,
    sent,
    /** The next answers for one device token, in order; then it is sent. */
    answer: (token: string, ...next: FcmAnswer[]) => answers.set(token, [...(answers.get(token) ?? []), ...next]),
    /** Access tokens issued from now on last this many seconds. */
    setExpiresIn: (seconds: number) => (state.expiresIn = seconds),
    /** Every access token issued so far stops working (as when Google revokes them). */
    revokeTokens: () => valid.clear(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
