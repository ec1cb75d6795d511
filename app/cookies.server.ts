// Every cookie the product sets. All last about one year (spec section 9).
import { createCookie } from "@remix-run/node";

const YEAR = 60 * 60 * 24 * 365;
const secure = () => process.env.NODE_ENV === "production";
const base = () => ({ path: "/", sameSite: "lax" as const, maxAge: YEAR, secure: secure() });

// Created lazily: server.ts settles SESSION_SECRET before the first request.
let session: ReturnType<typeof createCookie> | undefined;
/** Holds a session id only; the session lives in the database. */
export function sessionCookie() {
  return (session ??= createCookie("sid", { ...base(), httpOnly: true, secrets: [process.env.SESSION_SECRET || "dev-only-secret"] }));
}

export const themeCookie = () => createCookie("theme", base());
export const richLinksCookie = () => createCookie("rich_links", base());
export const languageCookie = () => createCookie("lng", base());
export const menuVisibilityCookie = () => createCookie("menu_item_visibility", base());
export const navMinimisedCookie = () => createCookie("nav_min", base());
/** The time of the announcement this browser dismissed. */
export const announcementSeenCookie = () => createCookie("announcement_seen", base());
