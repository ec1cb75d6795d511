// /analyst_intelligence (spec section 2, trading edition, admins): what customers ask about (the
// AI's classification and context of each conversation) and how it moves week by week, as charts
// drawn on the server; each topic and intent leads to its conversations (only those the viewer may
// read), each to its analyst view (/analyst_intelligence/{kind}/{n}). Below, the trade alerts: the
// words and instruments admins watch in customers' messages (alerts.server.ts). Plain GET links
// and POST forms: it works without JavaScript.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { pageMeta } from "~/meta";
import { translatorFor } from "~/i18n.server";
import { formResult, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { conversationPath } from "~/conversation/channels";
import { CLASSES } from "@plugins/ai/analyse";
import { pageRange, requireAnalyst } from "../charts.server";
import { topicCharts } from "../charts.server";
import { conversationsAbout, PAGE } from "../insight.server";
import { addAlertRule, alertRules, KEYWORD_MAX, recentHits, removeAlertRule } from "../alerts.server";
import { AnalystPage } from "../components/AnalystUI";

const INTENT = /^[a-z_]{1,40}$/;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requireAnalyst(request, context, "analyst_intelligence");
  const url = new URL(request.url);
  const parsed = pageRange(ctx, url);
  const topic = url.searchParams.get("topic") ?? "";
  const intent = url.searchParams.get("intent") ?? "";
  const offset = Math.max(0, Math.floor(Number(url.searchParams.get("offset")) || 0));
  const filter = {
    classification: (CLASSES as readonly string[]).includes(topic) ? topic : undefined,
    intent: INTENT.test(intent) ? intent : undefined,
  };
  const t = translatorFor(ctx.language);
  const [topics, drill, rules, hits] = await Promise.all([
    parsed.ok ? topicCharts(ctx.user, parsed.range, { t, language: ctx.language, timeZone: ctx.workspace.timeZone }) : null,
    parsed.ok && (filter.classification || filter.intent) ? conversationsAbout(ctx.user, filter, parsed.range, offset) : null,
    alertRules(),
    recentHits(Date.now() - 7 * 86_400_000),
  ]);
  const rangeQuery = parsed.ok ? `start=${parsed.values.start}&end=${parsed.values.end}` : "";
  return json(
    {
      path: url.pathname,
      values: parsed.values,
      error: parsed.ok ? null : parsed.error,
      charts: topics?.charts ?? [],
      counts: topics?.counts ?? { classes: [], intents: [] },
      rangeQuery,
      filter,
      offset,
      drill: drill ? { ...drill, items: drill.items.map((c) => ({ ...c, href: `/analyst_intelligence/${c.kind}/${c.ticketNumber}` })) } : null,
      rules: rules.map((r) => ({ id: r.id, keyword: r.keyword })),
      hits: hits.map((h) => ({ ...h, href: `/analyst_intelligence/${h.kind}/${h.ticketNumber}` })),
      keywordMax: KEYWORD_MAX,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const ctx = await requireAnalyst(request, context, "analyst_intelligence");
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if (intent === "add_alert") {
    const keyword = String(form.get("keyword") ?? "");
    const refused = await addAlertRule(keyword, ctx.user.id);
    if (refused) return refuse(formResult({ intent, errors: { keyword: refused }, values: { keyword } }), refused.endsWith("duplicate") ? 409 : 400);
  } else if (intent === "remove_alert") {
    const id = Number(form.get("id"));
    if (Number.isInteger(id) && id > 0) await removeAlertRule(id);
  } else throw new Response("Bad Request", { status: 400 });
  return redirect("/analyst_intelligence#trade-alerts");
}

export const meta = pageMeta("plugin_analyst.menu.analyst_intelligence", [{ name: "robots", content: "noindex" }]);

export default function AnalystIntelligence() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const refused = useFormResult("add_alert");
  const drillTo = (key: "topic" | "intent", value: string) => `?${data.rangeQuery}&${key}=${encodeURIComponent(value)}#drill`;
  return (
    <AnalystPage title="plugin_analyst.menu.analyst_intelligence" intro="plugin_analyst.intelligence.intro" {...data}>
      <div className="report-grid">
        <section className="card stack" aria-labelledby="topics-title">
          <h2 id="topics-title">{t("plugin_analyst.intelligence.topics")}</h2>
          {data.counts.classes.length ? (
            <ul>
              {data.counts.classes.map((c) => (
                <li key={c.key}>
                  <Link to={drillTo("topic", c.key)}>{t("plugin_analyst.intelligence.count", { name: t(`plugin_ai.class.${c.key}`), count: c.count })}</Link>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t("plugin_analyst.empty")}</p>
          )}
        </section>
        <section className="card stack" aria-labelledby="intents-title">
          <h2 id="intents-title">{t("plugin_analyst.intelligence.intents")}</h2>
          {data.counts.intents.length ? (
            <ul>
              {data.counts.intents.map((c) => (
                <li key={c.key}>
                  <Link to={drillTo("intent", c.key)}>{t("plugin_analyst.intelligence.count", { name: t(`plugin_ai.intent.${c.key}`), count: c.count })}</Link>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t("plugin_analyst.empty")}</p>
          )}
        </section>
      </div>
      {data.drill ? (
        <section className="card stack" id="drill" aria-labelledby="drill-title" data-testid="analyst-drill">
          <h2 id="drill-title">
            {data.filter.classification
              ? t("plugin_analyst.intelligence.about", { name: t(`plugin_ai.class.${data.filter.classification}`) })
              : t("plugin_analyst.intelligence.wanting", { name: t(`plugin_ai.intent.${data.filter.intent}`) })}
          </h2>
          {data.drill.items.length ? (
            <ul>
              {data.drill.items.map((c) => (
                <li key={`${c.kind}-${c.ticketNumber}`}>
                  <Link to={c.href}>{t("plugin_analyst.intelligence.conversation", { number: c.ticketNumber, title: c.title })}</Link>{" "}
                  <span className="muted">{c.emotion ? t(`plugin_ai.emotion.${c.emotion}`) : ""}</span>{" "}
                  <Link to={conversationPath(c.kind, c.ticketNumber)}>{t("plugin_analyst.intelligence.open", { number: c.ticketNumber })}</Link>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">{t("plugin_analyst.empty")}</p>
          )}
          {data.drill.more ? (
            <Link
              to={`?${data.rangeQuery}&${data.filter.classification ? `topic=${data.filter.classification}` : `intent=${data.filter.intent}`}&offset=${data.offset + PAGE}#drill`}
            >
              {t("plugin_analyst.more")}
            </Link>
          ) : null}
        </section>
      ) : null}
      <section className="card stack" id="trade-alerts" aria-labelledby="alerts-title" data-testid="trade-alerts">
        <h2 id="alerts-title">{t("plugin_analyst.alerts.title")}</h2>
        <p>{t("plugin_analyst.alerts.intro")}</p>
        {data.rules.length ? (
          <ul>
            {data.rules.map((r) => (
              <li key={r.id}>
                {r.keyword}{" "}
                <Form method="post" className="inline">
                  <input type="hidden" name="intent" value="remove_alert" />
                  <input type="hidden" name="id" value={r.id} />
                  <button type="submit" className="link-button" aria-label={t("plugin_analyst.alerts.removeOne", { keyword: r.keyword })}>
                    {t("plugin_analyst.alerts.remove")}
                  </button>
                </Form>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">{t("plugin_analyst.alerts.none")}</p>
        )}
        <Form method="post" className="inline-form" key={refused?.values.keyword ?? "new"}>
          <input type="hidden" name="intent" value="add_alert" />
          <label>
            {t("plugin_analyst.alerts.keyword")}
            <input
              name="keyword"
              defaultValue={refused?.values.keyword ?? ""}
              maxLength={data.keywordMax * 2}
              required
              aria-invalid={!!refused?.errors.keyword}
              aria-describedby={refused?.errors.keyword ? "keyword-error" : undefined}
            />
          </label>
          <button type="submit" className="button">
            {t("plugin_analyst.alerts.add")}
          </button>
        </Form>
        {refused?.errors.keyword ? (
          <p className="field-error" role="alert" id="keyword-error">
            {t(refused.errors.keyword, { max: data.keywordMax })}
          </p>
        ) : null}
        <h3>{t("plugin_analyst.alerts.recent")}</h3>
        {data.hits.length ? (
          <ul>
            {data.hits.map((h, i) => (
              <li key={i}>
                <Link to={h.href}>{t("plugin_analyst.alerts.hit", { keyword: h.keyword, number: h.ticketNumber, title: h.title })}</Link>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">{t("plugin_analyst.alerts.noHits")}</p>
        )}
      </section>
    </AnalystPage>
  );
}
