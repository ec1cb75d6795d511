// /report/share: admins create and revoke public dashboard links (/dashboard/{token}).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requireAdmin } from "~/context.server";
import { deniedBoundary } from "~/components/AdminOnly";
import { requireReportViewer, createDashboardToken, listDashboardTokens, revokeDashboardToken } from "../index.server";
import { pageMeta } from "~/meta";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireReportViewer(request, context);
  await requireAdmin(request);
  const links = await listDashboardTokens(new URL(request.url).origin, ctx.workspace.timeZone);
  return json({ links, done: new URL(request.url).searchParams.get("done") }, { headers: { "Cache-Control": "private, no-store" } });
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireReportViewer(request, context);
  await requireAdmin(request);
  const form = await request.formData();
  if (form.get("intent") === "create") {
    await createDashboardToken();
    return redirect("/report/share?done=created");
  }
  if (form.get("intent") === "revoke") {
    await revokeDashboardToken(String(form.get("token") ?? ""));
    return redirect("/report/share?done=revoked");
  }
  throw new Response("Bad Request", { status: 400 });
}

export const meta = pageMeta("reports.share.title");

export default function SharePage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="report-page stack">
      <h1>{t("reports.share.title")}</h1>
      <p className="muted">{t("reports.share.intro")}</p>
      {data.done === "created" || data.done === "revoked" ? (
        <p className="notice" role="status">
          {t(data.done === "created" ? "reports.share.createdNotice" : "reports.share.revokedNotice")}
        </p>
      ) : null}
      <Form method="post">
        <input type="hidden" name="intent" value="create" />
        <button type="submit">{t("reports.share.create")}</button>
      </Form>
      {data.links.length === 0 ? <p>{t("reports.share.none")}</p> : null}
      <ul className="share-links stack">
        {data.links.map((l) => (
          <li key={l.token} className="card">
            <a href={l.url}>{l.url}</a>
            <span className="muted">
              {" "}
              {t("reports.share.created")}: {l.created}
            </span>
            <Form method="post">
              <input type="hidden" name="intent" value="revoke" />
              <input type="hidden" name="token" value={l.token} />
              <button type="submit" className="danger">
                {t("reports.share.revoke")}
              </button>
            </Form>
          </li>
        ))}
      </ul>
    </section>
  );
}

export const ErrorBoundary = deniedBoundary("admin.denied");
