// Save or delete a filter preset of the list panel.
import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { requireUser } from "~/context.server";
import { safeRedirect } from "~/forms";
import { deletePreset, savePreset } from "../filter-presets.server";

export const loader = () => redirect("/");

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request);
  const form = await request.formData();
  const back = safeRedirect(form.get("redirectTo"));
  if (form.get("intent") === "delete") await deletePreset(user.id, Number(form.get("id")));
  else {
    const name = String(form.get("name") ?? "").trim();
    if (name) await savePreset(user.id, name, String(form.get("query") ?? ""));
  }
  return redirect(back);
}
