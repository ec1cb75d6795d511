// /campaign/{id}: a campaign, its counts and its recipients (20 a page, each with its state, the
// provider's words when a message failed, and its conversation). Admins edit it while it is a
// draft, start it (its recipients are then written: all contacts with a phone or email, or those a
// search finds), pause and resume it. Plain forms (intent save | start | pause | resume): they
// work without JavaScript, a refusal keeps what was typed, request keys make a double submit act once.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation, useRevalidator } from "@remix-run/react";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { TableScroll } from "~/components/TableScroll";
import { conversationPath } from "~/conversation/channels";
import { deliveryErrorText } from "~/conversation/delivery";
import { formResult, formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { campaignAccounts, campaignDetail, fieldsOf, recipientsOf, saveCampaign, setPaused, startCampaign } from "../campaign.server";
import { CampaignFields } from "../components/CampaignFields";
import { requireCampaignAdmin, requireCampaignUser } from "../guard.server";
import { FIELDS } from "../limits";
import { formWriteOnce } from "~/request-keys.server";

const idOf = (value: string | undefined) => (/^\d{1,12}$/.test(value ?? "") ? Number(value) : NaN);

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const ctx = await requireCampaignUser(request, context);
  const id = idOf(params.id);
  const campaign = Number.isSafeInteger(id) ? await campaignDetail(id) : undefined;
  if (!campaign) throw new Response("Not Found", { status: 404 });
  const page = Number(new URL(request.url).searchParams.get("page") ?? 1);
  const isAdmin = ctx.user.type === "admin";
  const editable = isAdmin && campaign.state === "draft";
  const [recipients, accounts] = await Promise.all([recipientsOf(id, Number.isSafeInteger(page) ? page : 1), editable ? campaignAccounts() : []]);
  const timeZone = ctx.workspace.timeZone;
  return json(
    {
      campaign: { ...campaign, fields: fieldsOf(campaign, timeZone) },
      recipients,
      isAdmin,
      editable,
      accounts: accounts.map((a) => ({ id: a.id, name: a.name, address: a.address, kind: a.kind })),
      timeZone,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const ctx = await requireCampaignAdmin(request, context);
  const id = idOf(params.id);
  if (!Number.isSafeInteger(id)) throw new Response("Not Found", { status: 404 });
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const all = formValues(form);
  const run = () => {
    if (intent === "save") return saveCampaign(ctx.user, formValues(form, FIELDS), ctx.workspace.timeZone, id);
    if (intent === "start") return startCampaign(id, ctx.user);
    if (intent === "pause" || intent === "resume") return setPaused(id, intent === "pause", ctx.user);
    return Promise.resolve({ ok: false as const, result: formResult({ message: "plugin_campaign.errors.stateChanged" }), status: 400 });
  };
  const outcome = await formWriteOnce(request, ctx.user.id, "campaign", `${intent}.${id}`, all, run);
  if (!outcome.ok) return refuse({ ...outcome.result, intent: outcome.result.intent ?? intent }, outcome.status);
  return redirect(`/campaign/${id}?done=${intent}`);
}

export const meta = pageMeta("plugin_campaign.title");

const when = (at: number | null, timeZone: string) => (at == null ? "" : `${formatDate(at, timeZone)} ${formatTime(at, timeZone)}`);

function StateButton({ intent, label, primary }: { intent: string; label: string; primary?: boolean }) {
  const navigation = useNavigation();
  return (
    <Form method="post" className="inline">
      <RequestKeyInput />
      <input type="hidden" name="intent" value={intent} />
      <button type="submit" className={primary ? "button primary" : "button"} disabled={navigation.state === "submitting"}>
        {label}
      </button>
    </Form>
  );
}

export default function CampaignPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const failed = useFormResult();
  const saveFailed = failed?.intent === "save" ? failed : undefined;
  const stateFailed = failed && failed.intent !== "save" ? failed : undefined;
  const { campaign, recipients } = data;
  const moving = campaign.state === "sending" || campaign.state === "scheduled";
  // with JavaScript, a sending campaign's counts follow themselves for a few minutes
  useEffect(() => {
    if (!moving) return;
    let left = 60;
    const timer = setInterval(() => {
      if (--left <= 0) clearInterval(timer);
      if (revalidator.state === "idle") revalidator.revalidate();
    }, 5000);
    return () => clearInterval(timer);
  }, [moving, revalidator]);
  const pageLink = (page: number) => `/campaign/${campaign.id}?page=${page}`;
  const counts = campaign.counts;
  return (
    <section className="stack campaign-page">
      <p>
        <Link to="/campaign">{t("plugin_campaign.back")}</Link>
      </p>
      <h1>{campaign.name}</h1>
      <dl className="campaign-facts">
        <dt>{t("plugin_campaign.col.state")}</dt>
        <dd data-testid="campaign-state">{t(`plugin_campaign.state.${campaign.state}`)}</dd>
        <dt>{t("plugin_campaign.col.channel")}</dt>
        <dd>{campaign.account ? `${campaign.account.name} (${campaign.account.kind}, ${campaign.account.address})` : t("plugin_campaign.noAccount")}</dd>
        <dt>{t("plugin_campaign.col.startsAt")}</dt>
        <dd>{campaign.startsAt ? when(campaign.startsAt, data.timeZone) : t("plugin_campaign.whenStarted")}</dd>
        <dt>{t("plugin_campaign.field.perMinute")}</dt>
        <dd>{campaign.perMinute}</dd>
        <dt>{t("plugin_campaign.field.audience")}</dt>
        <dd>{campaign.audience === "search" ? t("plugin_campaign.audienceSearch", { query: campaign.query }) : t("plugin_campaign.audience.all")}</dd>
        <dt>{t("plugin_campaign.counts")}</dt>
        <dd data-testid="campaign-counts">
          {t("plugin_campaign.countsText", {
            total: counts.total,
            sent: counts.sent,
            failed: counts.failed,
            optedOut: counts.optedOut,
            pending: counts.pending,
          })}
        </dd>
      </dl>
      {data.isAdmin ? (
        <div className="row">
          <FormMessage result={stateFailed} />
          {campaign.state === "draft" ? <StateButton intent="start" label={t("plugin_campaign.start")} primary /> : null}
          {moving ? <StateButton intent="pause" label={t("plugin_campaign.pause")} /> : null}
          {campaign.state === "paused" ? <StateButton intent="resume" label={t("plugin_campaign.resume")} primary /> : null}
        </div>
      ) : null}
      {data.editable ? (
        <section className="card stack" aria-labelledby="campaign-edit">
          <h2 id="campaign-edit">{t("plugin_campaign.edit")}</h2>
          <Form method="post" noValidate className="stack narrow" key={refusalKey(saveFailed, location.key)}>
            <RequestKeyInput />
            <input type="hidden" name="intent" value="save" />
            <FormMessage result={saveFailed} />
            <CampaignFields accounts={data.accounts} initial={campaign.fields} failed={saveFailed} />
            <div>
              <button type="submit" className="button" disabled={navigation.state === "submitting"}>
                {t("plugin_campaign.save")}
              </button>
            </div>
          </Form>
        </section>
      ) : (
        <section className="stack" aria-labelledby="campaign-template">
          <h2 id="campaign-template">{t("plugin_campaign.field.template")}</h2>
          <p className="campaign-template">{campaign.template}</p>
        </section>
      )}
      <section className="stack" aria-labelledby="campaign-recipients">
        <h2 id="campaign-recipients">{t("plugin_campaign.recipients")}</h2>
        {recipients.items.length ? (
          <TableScroll label={t("plugin_campaign.recipients")}>
            <table className="payment-table campaign-recipients">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_campaign.col.contact")}</th>
                  <th scope="col">{t("plugin_campaign.col.address")}</th>
                  <th scope="col">{t("plugin_campaign.col.state")}</th>
                  <th scope="col">{t("plugin_campaign.col.conversation")}</th>
                  <th scope="col">{t("plugin_campaign.col.sentAt")}</th>
                </tr>
              </thead>
              <tbody>
                {recipients.items.map((r) => (
                  <tr key={r.id} data-state={r.state}>
                    <th scope="row">{r.uid ? <Link to={`/contacts/${r.uid}`}>{r.name || r.address}</Link> : r.name || r.address}</th>
                    <td>
                      <code>{r.address}</code>
                    </td>
                    <td className={r.state === "failed" || r.delivery === "failed" ? "field-error" : undefined}>
                      {t(`plugin_campaign.recipientState.${r.state}`)}
                      {r.state === "sent" && r.delivery ? ` · ${t(`conversation.delivery.${r.delivery === "waiting" ? "queued" : r.delivery}`)}` : ""}
                      {r.delivery === "failed" && r.deliveryError ? `: ${deliveryErrorText(t, r.deliveryError)}` : ""}
                      {r.error ? `: ${r.error}` : ""}
                    </td>
                    <td>{r.ticketNumber ? <Link to={conversationPath("ticket", r.ticketNumber)}>#{r.ticketNumber}</Link> : ""}</td>
                    <td>{when(r.sentAt, data.timeZone)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p className="muted">{campaign.state === "draft" ? t("plugin_campaign.recipientsWhenStarted") : t("plugin_campaign.noRecipients")}</p>
        )}
        {recipients.page > 1 || recipients.more ? (
          <nav className="pager" aria-label={t("plugin_campaign.list.pages")}>
            {recipients.page > 1 ? <Link to={pageLink(recipients.page - 1)}>{t("plugin_campaign.list.previous")}</Link> : <span />}
            <span>{t("plugin_campaign.recipientsPage", { page: recipients.page })}</span>
            {recipients.more ? <Link to={pageLink(recipients.page + 1)}>{t("plugin_campaign.list.next")}</Link> : <span />}
          </nav>
        ) : null}
      </section>
    </section>
  );
}
