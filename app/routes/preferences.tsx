// Browser preferences (theme, rich links, language, menu), kept in cookies of about a year so they
// work without JavaScript. A signed-in user's language is also saved on their account.
import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { announcementSeenCookie, languageCookie, menuVisibilityCookie, navMinimisedCookie, richLinksCookie, themeCookie } from "~/cookies.server";
import { currentAuth } from "~/context.server";
import { isLanguage } from "~/i18n";
import { isTheme } from "~/theme";
import { safeRedirect } from "~/forms";
import { setUserLanguage } from "~/accounts/users.server";
import { parseVisibility, serializeVisibility } from "~/nav";

export const loader = () => redirect("/");

export async function action({ request }: ActionFunctionArgs) {
  const form = await request.formData();
  const back = safeRedirect(form.get("redirectTo"));
  const value = String(form.get("value") ?? "");
  const cookie = await cookieFor(request, String(form.get("intent")), value, form);
  if (!cookie) return redirect(back);
  return redirect(back, { headers: { "Set-Cookie": cookie } });
}

async function cookieFor(request: Request, intent: string, value: string, form: FormData) {
  switch (intent) {
    case "theme":
      return isTheme(value) ? themeCookie().serialize(value) : undefined;
    case "rich_links":
      return richLinksCookie().serialize(value === "1" ? "1" : "0");
    case "announcement_seen":
      return /^\d{1,15}$/.test(value) ? announcementSeenCookie().serialize(value) : undefined;
    case "nav_min":
      return navMinimisedCookie().serialize(value === "1" ? "1" : "0");
    case "language": {
      const language = String(form.get("language") ?? value);
      if (!isLanguage(language)) return undefined;
      const auth = await currentAuth(request);
      if (auth) await setUserLanguage(auth.user.id, language);
      return languageCookie().serialize(language);
    }
    case "menu_visibility": {
      // every listed item gets an explicit choice, so edition defaults can be overridden both ways
      const current = parseVisibility(await menuVisibilityCookie().parse(request.headers.get("Cookie")));
      const visible = new Set(form.getAll("visible").map(String));
      for (const id of form.getAll("listed").map(String)) current[id] = visible.has(id);
      return menuVisibilityCookie().serialize(serializeVisibility(parseVisibility(serializeVisibility(current))));
    }
    default:
      return undefined;
  }
}
