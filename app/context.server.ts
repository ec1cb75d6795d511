// What every request needs to know: the edition (from Host), the signed-in user (session cookie),
// the language and the theme. Guards for routes live here too.
import { redirect } from "@remix-run/node";
import { menuVisibilityCookie, navMinimisedCookie, richLinksCookie, sessionCookie, themeCookie } from "./cookies.server";
import { detectLanguage } from "./i18n.server";
import { editionForHost } from "./models/editions.server";
import { findSession } from "./accounts/sessions.server";
import { oauthQuerySignIn } from "./accounts/sso.server";
import { getWorkspace } from "./models/settings.server";
import { permissionsOf } from "./accounts/users.server";
import { isTheme, type Theme } from "./theme";
import type { Viewer } from "./permissions";
import { pluginForPath } from "./plugins/registry.server";

export async function sessionToken(request: Request): Promise<string | undefined> {
  const value = await sessionCookie().parse(request.headers.get("Cookie"));
  return typeof value === "string" ? value : undefined;
}

export async function currentAuth(request: Request) {
  return findSession(await sessionToken(request));
}

// Root, shell and route loaders of one GET request share one context (keyed by Remix's load
// context object, which is per request). After an action the context is rebuilt.
const memo = new WeakMap<object, Promise<RequestContext>>();

export function requestContext(request: Request, loadContext?: object): Promise<RequestContext> {
  if (!loadContext || request.method !== "GET") return buildContext(request, loadContext);
  let pending = memo.get(loadContext);
  if (!pending) memo.set(loadContext, (pending = buildContext(request, loadContext)));
  return pending;
}

async function buildContext(request: Request, loadContext?: { clientIp?: string }) {
  const cookieHeader = request.headers.get("Cookie");
  const [edition, auth, workspace, themeValue, richLinks, visibility, navMin] = await Promise.all([
    editionForHost(request.headers.get("Host")),
    currentAuth(request),
    getWorkspace(),
    themeCookie().parse(cookieHeader),
    richLinksCookie().parse(cookieHeader),
    menuVisibilityCookie().parse(cookieHeader),
    navMinimisedCookie().parse(cookieHeader),
  ]);
  // token sign-in on any page (spec section 2: the oauth query parameter); the root loader throws it first
  if (!auth && request.method === "GET" && new URL(request.url).searchParams.has("oauth")) throw await oauthQuerySignIn(request, loadContext?.clientIp ?? "");
  const language = await detectLanguage(request, auth?.user.language);
  const theme: Theme = isTheme(themeValue) ? themeValue : "auto";
  return {
    edition,
    auth,
    user: auth?.user,
    workspace,
    language,
    theme,
    richLinks: richLinks !== "0",
    menuVisibility: typeof visibility === "string" ? visibility : "",
    navMinimised: navMin === "1",
  };
}
export type RequestContext = Awaited<ReturnType<typeof buildContext>>;

export function viewerOf(ctx: RequestContext): Viewer | undefined {
  if (!ctx.user) return undefined;
  return {
    type: ctx.user.type === "admin" ? "admin" : "agent",
    permissions: permissionsOf(ctx.user),
    clientId: ctx.workspace.clientId,
    plan: ctx.workspace.plan,
    variant: ctx.edition.variant,
  };
}

/** Logged-out visitors of any protected page go to the login form at / (spec section 2). */
export async function requireUser(request: Request) {
  const auth = await currentAuth(request);
  if (!auth) throw redirect("/");
  return auth;
}

export async function requireAdmin(request: Request) {
  const auth = await requireUser(request);
  if (auth.user.type !== "admin") throw new Response("Access denied", { status: 403 });
  return auth;
}

export const isTrial = (ctx: RequestContext) => ctx.workspace.accountType === 0;

/**
 * The gate in front of every plugin route: 404 when the plugin is off for this edition,
 * home for trial accounts outside the base pages, login for logged-out visitors.
 */
export async function guardPluginRoute(request: Request, loadContext?: object) {
  const ctx = await requestContext(request, loadContext);
  const owner = pluginForPath(new URL(request.url).pathname);
  if (!owner) throw new Response("Not Found", { status: 404 });
  // logged-out visitors are sent to the login form before anything else is revealed
  if (!owner.isPublic && !ctx.user) throw redirect("/");
  if (!ctx.edition.enabled.includes(owner.plugin.id)) throw new Response("Not Found", { status: 404 });
  if (owner.isPublic) {
    if (owner.guestOnly && ctx.user) throw redirect("/");
    return { ctx, plugin: owner.plugin };
  }
  if (isTrial(ctx) && !owner.plugin.trial) throw redirect("/");
  return { ctx, plugin: owner.plugin };
}

/**
 * The address links in mail and on admin pages point to: BASE_URL when set (set it in production,
 * so a forged Host header cannot send a reset link elsewhere), else the request's own origin.
 */
export function publicOrigin(request: Request) {
  return (process.env.BASE_URL || new URL(request.url).origin).replace(/\/+$/, "");
}
