// A real OpenID Provider on loopback for the single sign-on tests (panva's oidc-provider, the
// certified implementation): one confidential client, accounts the test defines, a sign-in that
// needs no human (the interaction finishes at once as the account chosen with signInAs), and ID
// tokens minted with the provider's own signing key for the token sign-in tests.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type KoaContextWithOIDC } from "oidc-provider";
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from "jose";

export type StandinAccount = { sub: string; email: string; email_verified: boolean; name?: string };

export interface OidcStandin {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next browser sign-in is, or "deny" for the user pressing Cancel at the provider. */
  signInAs(sub: string | "deny"): void;
  /** An ID token signed with the provider's key (or `foreignKey`: one it never published). */
  mintIdToken(claims: JWTPayload & { sub: string }, opts?: { audience?: string; expiresIn?: string | number; foreignKey?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export async function startOidcStandin(opts: {
  redirectUris: string[];
  accounts: StandinAccount[];
  clientId?: string;
  clientSecret?: string;
}): Promise<OidcStandin> {
  const clientId = opts.clientId ?? "omnidesk-test";
  const clientSecret = opts.clientSecret ?? "standin-secret-0123456789";
  const accounts = new Map(opts.accounts.map((a) => [a.sub, a]));
  let current = opts.accounts[0]?.sub ?? "deny";

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingJwk = { ...(await exportJWK(privateKey)), kid: "standin-1", alg: "RS256", use: "sig" };
  const foreign = await generateKeyPair("RS256");

  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: opts.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [signingJwk as never] },
    cookies: { keys: ["standin-cookie-key"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: account.email, email_verified: account.email_verified, name: account.name ?? sub }) };
    },
    // a first-party client: consent is given with the login
    async loadExistingGrant(ctx) {
      const { client, session } = ctx.oidc;
      const grantId = ctx.oidc.result?.consent?.grantId || session?.grantIdFor(client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({ clientId: client!.clientId, accountId: session!.accountId! });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
  });

  const handle = provider.callback();
  server.on("request", async (req, res) => {
    if (!req.url?.startsWith("/interaction/")) return handle(req, res);
    try {
      await provider.interactionDetails(req, res);
      const result = current === "deny" ? { error: "access_denied", error_description: "The user cancelled the sign-in." } : { login: { accountId: current } };
      await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    } catch (error) {
      res.statusCode = 400;
      res.end(String(error));
    }
  });

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs(sub) {
      current = sub;
    },
    async mintIdToken(claims, o = {}) {
      return (
        new SignJWT({ email_verified: true, ...claims })
          .setProtectedHeader({ alg: "RS256", kid: "standin-1" })
          .setIssuer(issuer)
          .setAudience(o.audience ?? clientId)
          .setIssuedAt()
          // RS256 signatures are deterministic: without a unique id, two tokens minted in the same
          // second for the same person are the same token (and the second counts as reused)
          .setJti(randomUUID())
          .setExpirationTime(o.expiresIn ?? "5m")
          .sign(o.foreignKey ? foreign.privateKey : privateKey)
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
