// Presence change from the user menu or the status banner.
import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { requireUser } from "~/context.server";
import { safeRedirect } from "~/forms";
import { changeStatus } from "~/accounts/custom-statuses.server";

export const loader = () => redirect("/");

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request);
  const form = await request.formData();
  const status = String(form.get("status") ?? "");
  const reason = String(form.get("reason") ?? "").slice(0, 200);
  // the built-in statuses and the admins' custom ones (app/accounts/custom-statuses.server.ts)
  const error = await changeStatus(user, status, reason);
  if (error) {
    // back to the page, where the user menu opens with the error (a plain form post has no other page to show it on)
    const back = new URL(safeRedirect(form.get("redirectTo")), "http://x");
    back.searchParams.set("status_error", error.replace("status.", ""));
    return redirect(back.pathname + back.search);
  }
  return redirect(safeRedirect(form.get("redirectTo")));
}
