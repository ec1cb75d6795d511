// Logout deletes the session row, clears the auth and theme cookies and disconnects the session's sockets.
import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { sessionToken } from "~/context.server";
import { sessionCookie, themeCookie } from "~/cookies.server";
import { deleteSession } from "~/accounts/sessions.server";

export const loader = () => redirect("/");

export async function action({ request }: ActionFunctionArgs) {
  const token = await sessionToken(request);
  if (token) await deleteSession(token);
  const headers = new Headers();
  headers.append("Set-Cookie", await sessionCookie().serialize("", { maxAge: 0 }));
  headers.append("Set-Cookie", await themeCookie().serialize("", { maxAge: 0 }));
  return redirect("/", { headers });
}
