// Who may see reports: whoever the reports plugin's own "report" menu item lets in (spec section 6:
// admins and users with view_report).
import { json, redirect } from "@remix-run/node";
import { menuItemAllows } from "~/plugins/registry.server";
import { guardPluginRoute, isTrial, requestContext, viewerOf } from "~/context.server";
import { findSession } from "~/accounts/sessions.server";
import type { RequestContext } from "~/context.server";
import type { Viewer } from "~/permissions";

const canReadReports = (viewer: Viewer) => menuItemAllows("reports", "report", viewer);

/** A report request's context: always signed in, so report rows can be limited to what the user may read. */
export type ReportContext = RequestContext & { user: NonNullable<RequestContext["user"]> };

/** Report pages: the plugin gate, then the report rule; anyone else goes home. */
export async function requireReportViewer(request: Request, loadContext?: object): Promise<ReportContext> {
  const { ctx } = await guardPluginRoute(request, loadContext);
  const viewer = viewerOf(ctx);
  if (!viewer || !ctx.user || !canReadReports(viewer)) throw redirect("/");
  return { ...ctx, user: ctx.user };
}

export const apiFailure = (status: number, description: string) =>
  json({ result: "failed", description }, { status, headers: { "Cache-Control": "private, no-store" } });

/**
 * Report JSON twins and exports: a session token (token or _token in the query, or a Bearer
 * header) or the session cookie; the reports plugin must be on for the edition.
 */
export async function reportApiAuth(request: Request, loadContext?: object): Promise<ReportContext> {
  const ctx = await requestContext(request, loadContext);
  if (!ctx.edition.enabled.includes("reports")) throw new Response("Not Found", { status: 404 });
  const url = new URL(request.url);
  const token = url.searchParams.get("token") || url.searchParams.get("_token") || request.headers.get("Authorization")?.replace(/^Bearer\s+/i, "");
  const auth = token ? await findSession(token) : ctx.auth;
  if (!auth) throw apiFailure(403, "Session expired. Please log in again.");
  const withUser = { ...ctx, auth, user: auth.user };
  // the same rule as the pages (the report menu rule, and no reports on a trial)
  const viewer = viewerOf(withUser);
  if (!viewer || !canReadReports(viewer) || isTrial(withUser)) throw apiFailure(403, "Access denied");
  return withUser;
}
