// Short-lived TURN credentials for coturn's `use-auth-secret` mode (the TURN REST API scheme):
// the username is `<expiry in unix seconds>:<user id>`, the password base64(HMAC-SHA1(secret,
// username)). coturn checks the same HMAC with the same shared secret (TURN_SECRET) and refuses
// a username whose expiry has passed, so nothing is stored and a leaked credential dies by itself.
import { createHmac } from "node:crypto";

export interface IceServer {
  urls: string | string[];
  username?: string;
  credential?: string;
}

/** One hour unless TURN_TTL says otherwise (seconds). */
export const turnTtl = (env: Record<string, string | undefined> = process.env) => Math.max(60, Number(env.TURN_TTL || 3600) || 3600);

export function turnCredential(secret: string, userId: string, now = Date.now(), ttlSeconds = 3600) {
  const username = `${Math.floor(now / 1000) + ttlSeconds}:${userId}`;
  const credential = createHmac("sha1", secret).update(username).digest("base64");
  return { username, credential };
}

/** True when the credential was made with this secret and has not expired (what coturn checks). */
export function turnCredentialValid(secret: string, username: string, credential: string, now = Date.now()) {
  const expiry = Number(username.split(":")[0]);
  if (!Number.isInteger(expiry) || expiry * 1000 <= now) return false;
  return createHmac("sha1", secret).update(username).digest("base64") === credential;
}

/** TURN_URLS (comma-separated turn:/turns: URLs) and TURN_SECRET (coturn's static-auth-secret). */
export function turnConfigured(env: Record<string, string | undefined> = process.env) {
  return Boolean(env.TURN_URLS?.trim() && env.TURN_SECRET);
}

/**
 * The ICE servers a participant gets: STUN_URLS as they are, TURN_URLS with a credential of their
 * own (userId: an agent's id or "guest-<invite id>"). Empty without configuration: then the
 * meeting still works between browsers that reach each other directly (loopback, one LAN).
 */
export function iceServersFor(userId: string, env: Record<string, string | undefined> = process.env, now = Date.now()): IceServer[] {
  const list = (v: string | undefined) =>
    (v || "")
      .split(",")
      .map((u) => u.trim())
      .filter(Boolean);
  const servers: IceServer[] = list(env.STUN_URLS).map((urls) => ({ urls }));
  if (turnConfigured(env)) servers.push({ urls: list(env.TURN_URLS), ...turnCredential(env.TURN_SECRET!, userId, now, turnTtl(env)) });
  return servers;
}
