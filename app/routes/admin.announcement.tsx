// Admin: an announcement to every agent (a banner in the shell, pushed to open pages).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requireAdmin } from "~/context.server";
import { announce, currentAnnouncement, MAX_ANNOUNCEMENT } from "~/models/announcement.server";
import { pageMeta } from "~/meta";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  return json({ announcement: await currentAnnouncement(), saved: new URL(request.url).searchParams.has("saved"), max: MAX_ANNOUNCEMENT });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  await announce(user, form.get("intent") === "clear" ? "" : String(form.get("text") ?? ""), context.clientIp);
  return redirect("/admin/announcement?saved=1");
}

export const meta = pageMeta("announcement.title");

export default function AdminAnnouncement() {
  const { t } = useTranslation();
  const data = useLoaderData<typeof loader>();
  return (
    <div className="page">
      <h1>{t("announcement.title")}</h1>
      {data.saved ? (
        <p className="notice" role="status">
          {t("announcement.saved")}
        </p>
      ) : null}
      <Form method="post" className="stack">
        <label>
          {t("announcement.text")}
          <textarea name="text" rows={3} maxLength={data.max} defaultValue={data.announcement?.text ?? ""} />
        </label>
        <div className="row">
          <button type="submit" name="intent" value="publish" className="button primary">
            {t("announcement.publish")}
          </button>
          {data.announcement ? (
            <button type="submit" name="intent" value="clear" className="button">
              {t("announcement.clear")}
            </button>
          ) : null}
        </div>
      </Form>
    </div>
  );
}
