// /campaign: the campaigns, newest first, 5 a page (spec section 9), each with how many of its
// recipients were sent, failed and opted out. Admins start a new one here and add an opt-out by
// hand (a phone or an email that is sent no campaign). Plain links and forms: the same without
// JavaScript. GET /api/campaign/list is its JSON twin.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useSearchParams } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { TableScroll } from "~/components/TableScroll";
import { formResult, formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { listCampaigns } from "../campaign.server";
import { requireCampaignAdmin, requireCampaignUser } from "../guard.server";
import { OPTOUT_FIELDS, OPTOUT_MAX } from "../limits";
import { addManualOptOut, latestOptOuts } from "../optout.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireCampaignUser(request, context);
  const page = Number(new URL(request.url).searchParams.get("page") ?? 1);
  const isAdmin = ctx.user.type === "admin";
  const [found, optOuts] = await Promise.all([
    listCampaigns({ page: Number.isSafeInteger(page) ? page : 1 }),
    isAdmin ? latestOptOuts(10) : Promise.resolve([]),
  ]);
  return json({ ...found, isAdmin, optOuts, timeZone: ctx.workspace.timeZone }, { headers: { "Cache-Control": "private, no-store" } });
}

export async function action({ request, context }: ActionFunctionArgs) {
  await requireCampaignAdmin(request, context);
  const values = formValues(await request.formData(), OPTOUT_FIELDS);
  const added = await addManualOptOut(values.value);
  if (!added.ok) return refuse(formResult({ intent: "optout", errors: { value: added.error }, values }));
  return redirect(`/campaign?optedOut=${encodeURIComponent(added.value)}`);
}

export const meta = pageMeta("plugin_campaign.title");

const when = (at: number | null, timeZone: string) => (at == null ? "" : `${formatDate(at, timeZone)} ${formatTime(at, timeZone)}`);

export default function CampaignList() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const failed = useFormResult("optout");
  const location = useLocation();
  const pages = Math.max(1, Math.ceil(data.total / data.size));
  const optedOut = params.get("optedOut");
  return (
    <section className="stack campaign-page">
      <h1>{t("plugin_campaign.title")}</h1>
      {data.isAdmin ? (
        <p>
          <Link to="/campaign/new" className="button primary">
            {t("plugin_campaign.new.title")}
          </Link>
        </p>
      ) : null}
      {data.campaigns.length ? (
        <TableScroll label={t("plugin_campaign.title")}>
          <table className="payment-table campaign-table">
            <thead>
              <tr>
                <th scope="col">{t("plugin_campaign.field.name")}</th>
                <th scope="col">{t("plugin_campaign.col.channel")}</th>
                <th scope="col">{t("plugin_campaign.col.state")}</th>
                <th scope="col">{t("plugin_campaign.col.startsAt")}</th>
                <th scope="col">{t("plugin_campaign.col.sent")}</th>
                <th scope="col">{t("plugin_campaign.col.failed")}</th>
                <th scope="col">{t("plugin_campaign.col.optedOut")}</th>
                <th scope="col">{t("plugin_campaign.col.total")}</th>
              </tr>
            </thead>
            <tbody>
              {data.campaigns.map((c) => (
                <tr key={c.id} data-testid={`campaign-${c.id}`} data-state={c.state}>
                  <th scope="row">
                    <Link to={`/campaign/${c.id}`}>{c.name}</Link>
                  </th>
                  <td>{c.accountName ? `${c.accountName} (${c.kind})` : t("plugin_campaign.noAccount")}</td>
                  <td>{t(`plugin_campaign.state.${c.state}`)}</td>
                  <td>{c.startsAt ? when(c.startsAt, data.timeZone) : t("plugin_campaign.whenStarted")}</td>
                  <td>{c.counts.sent}</td>
                  <td>{c.counts.failed}</td>
                  <td>{c.counts.optedOut}</td>
                  <td>{c.counts.total}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted" role="status">
          {t("plugin_campaign.list.none")}
        </p>
      )}
      {pages > 1 ? (
        <nav className="pager" aria-label={t("plugin_campaign.list.pages")}>
          {data.page > 1 ? <Link to={`/campaign?page=${data.page - 1}`}>{t("plugin_campaign.list.previous")}</Link> : <span />}
          <span>{t("plugin_campaign.list.page", { page: data.page, pages })}</span>
          {data.page < pages ? <Link to={`/campaign?page=${data.page + 1}`}>{t("plugin_campaign.list.next")}</Link> : <span />}
        </nav>
      ) : null}
      {data.isAdmin ? (
        <section className="card stack" aria-labelledby="campaign-optouts">
          <h2 id="campaign-optouts">{t("plugin_campaign.optOut.title")}</h2>
          <p className="muted">{t("plugin_campaign.optOut.intro")}</p>
          {optedOut ? (
            <p className="notice" role="status">
              {t("plugin_campaign.optOut.added", { value: optedOut })}
            </p>
          ) : null}
          <Form method="post" noValidate className="row" key={refusalKey(failed, location.key)} aria-labelledby="campaign-optouts">
            <FormMessage result={failed} />
            <label htmlFor="campaign-optout-value">{t("plugin_campaign.optOut.value")}</label>
            <input
              id="campaign-optout-value"
              name="value"
              type="text"
              maxLength={OPTOUT_MAX}
              autoComplete="off"
              defaultValue={failed?.values.value ?? ""}
              aria-invalid={!!failed?.errors.value}
              aria-describedby={failed?.errors.value ? "campaign-optout-value-error" : undefined}
            />
            <button type="submit" className="button">
              {t("plugin_campaign.optOut.add")}
            </button>
            {failed?.errors.value ? (
              <p id="campaign-optout-value-error" className="field-error">
                {t(failed.errors.value)}
              </p>
            ) : null}
          </Form>
          {data.optOuts.length ? (
            <TableScroll label={t("plugin_campaign.optOut.latest")}>
              <table className="payment-table">
                <caption>{t("plugin_campaign.optOut.latest")}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t("plugin_campaign.optOut.value")}</th>
                    <th scope="col">{t("plugin_campaign.optOut.where")}</th>
                    <th scope="col">{t("plugin_campaign.optOut.at")}</th>
                  </tr>
                </thead>
                <tbody>
                  {data.optOuts.map((o) => (
                    <tr key={o.id}>
                      <td>
                        <code>{o.value}</code>
                      </td>
                      <td>{o.channel === "manual" ? t("plugin_campaign.optOut.manual") : o.channel}</td>
                      <td>{when(o.at, data.timeZone)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          ) : null}
        </section>
      ) : null}
    </section>
  );
}
