// The cookie that binds a guest's browser to the one-time link it used: the meeting's token, the
// invite's id and the browser's secret (its hash is stored with the invite). Signed and httpOnly;
// it lasts one day (a meeting is shorter), sent with every request of this site (the socket.io handshake needs it).
import { createCookie } from "@remix-run/node";

let cookie: ReturnType<typeof createCookie> | undefined;
export function guestCookie() {
  return (cookie ??= createCookie("meeting_guest", {
    path: "/",
    sameSite: "lax",
    httpOnly: true,
    maxAge: 60 * 60 * 24,
    secure: process.env.NODE_ENV === "production",
    secrets: [process.env.SESSION_SECRET || "dev-only-secret"],
  }));
}
