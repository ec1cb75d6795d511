// The visitor's own key: a random value in a long-lived httpOnly cookie, set by the server on the
// public live chat pages. A visitor's chats are grouped into one session by it (never by an email
// they type, which anyone can type). The database keeps only its hash.
import { createHash, randomBytes } from "node:crypto";
import { createCookie } from "@remix-run/node";

const YEAR = 60 * 60 * 24 * 365;
const KEY = /^[A-Za-z0-9_-]{32,64}$/;

// The chat opens in a frame of other websites: over https SameSite=None lets the cookie come
// along there (where the browser allows it); without it each visit simply starts a new session.
const cookie = () => {
  const secure = process.env.NODE_ENV === "production";
  return createCookie("lc_visitor", { path: "/", httpOnly: true, maxAge: YEAR, sameSite: secure ? "none" : "lax", secure });
};

export const hashVisitorKey = (key: string) => createHash("sha256").update(`livechat-visitor:${key}`).digest("base64url");

export interface VisitorKey {
  /** What the session stores (livechatSessions.visitorKey). */
  hash: string;
  /** Set-Cookie for a browser that had no key yet. */
  setCookie?: string;
}

/** This browser's key, or a new one to set (pass `setCookie` on to the response). */
export async function visitorKey(request: Request): Promise<VisitorKey> {
  const value = await cookie().parse(request.headers.get("Cookie"));
  if (typeof value === "string" && KEY.test(value)) return { hash: hashVisitorKey(value) };
  const key = randomBytes(24).toString("base64url");
  return { hash: hashVisitorKey(key), setCookie: await cookie().serialize(key) };
}

/** Headers that give a browser its key when it has none. */
export const keyHeaders = (key: VisitorKey): HeadersInit => (key.setCookie ? { "Set-Cookie": key.setCookie } : {});
