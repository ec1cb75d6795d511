// /analyst_intelligence/{kind}/{n} (spec section 2; a trade alert's notification leads here): one
// conversation as the analyst sees it: the AI's reading of each message (emotion, classification,
// what the customer wants, the words it is about), its roll-up, the agent's final label and the
// trade alerts it raised, with a link to the conversation itself. Only a conversation the viewer
// may read is shown (404 otherwise, as for one that does not exist).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { pageMeta } from "~/meta";
import { conversationPath, KINDS } from "~/conversation/channels";
import { formatter } from "~/time";
import { requireAnalyst } from "../charts.server";
import { conversationInsight } from "../insight.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const ctx = await requireAnalyst(request, context, "analyst_intelligence");
  const kind = String(params.channel);
  const number = Number(params.id);
  if (!(KINDS as readonly string[]).includes(kind) || !Number.isInteger(number) || number <= 0) throw new Response("Not Found", { status: 404 });
  const found = await conversationInsight(ctx.user, kind, number);
  if (!found) throw new Response("Not Found", { status: 404 });
  const when = formatter(ctx.workspace.timeZone, "clock");
  return json(
    {
      ...found,
      href: conversationPath(found.ticket.kind, found.ticket.ticketNumber),
      readings: found.readings.map((r) => ({ ...r, at: when.format(r.createdAt) })),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_analyst.conversation.title", [{ name: "robots", content: "noindex" }]);

export default function ConversationInsight() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const emotion = (e: string) => (e ? t(`plugin_ai.emotion.${e}`) : t("plugin_analyst.none"));
  const cls = (c: string) => (c ? t(`plugin_ai.class.${c}`) : t("plugin_analyst.none"));
  return (
    <section className="report-page stack" data-testid="analyst-conversation">
      <h1>{t("plugin_analyst.conversation.heading", { number: data.ticket.ticketNumber, title: data.ticket.title })}</h1>
      <p>
        <Link to="/analyst_intelligence">{t("plugin_analyst.conversation.back")}</Link> ·{" "}
        <Link to={data.href}>{t("plugin_analyst.intelligence.open", { number: data.ticket.ticketNumber })}</Link>
      </p>
      <dl className="stack">
        <dt>{t("plugin_analyst.conversation.predicted")}</dt>
        <dd data-testid="analyst-rollup">
          {data.rollup
            ? t("plugin_analyst.conversation.reading", { emotion: emotion(data.rollup.customerEmotion), classification: cls(data.rollup.classification) })
            : t("plugin_analyst.conversation.notYet")}
        </dd>
        <dt>{t("plugin_analyst.conversation.label")}</dt>
        <dd>
          {data.label
            ? t("plugin_analyst.conversation.reading", { emotion: emotion(data.label.emotion), classification: cls(data.label.classification) })
            : t("plugin_analyst.none")}
        </dd>
        {data.alerts.length ? (
          <>
            <dt>{t("plugin_analyst.alerts.title")}</dt>
            <dd data-testid="analyst-alerts">{[...new Set(data.alerts.map((a) => a.keyword))].join(", ")}</dd>
          </>
        ) : null}
      </dl>
      <table className="card">
        <caption>{t("plugin_analyst.conversation.messages")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("plugin_analyst.columns.time")}</th>
            <th scope="col">{t("plugin_analyst.columns.from")}</th>
            <th scope="col">{t("plugin_analyst.columns.emotion")}</th>
            <th scope="col">{t("plugin_analyst.columns.topic")}</th>
            <th scope="col">{t("plugin_analyst.columns.about")}</th>
          </tr>
        </thead>
        <tbody>
          {data.readings.map((r) => (
            <tr key={r.messageId}>
              <td>
                <Link to={`${data.href}?message_id=${r.messageId}#m-${r.messageId}`}>{r.at}</Link>
              </td>
              <td>{r.fromCustomer ? t("plugin_analyst.conversation.customer") : t("plugin_analyst.conversation.agent")}</td>
              <td>
                {r.emotion ? t("plugin_analyst.conversation.emotion", { emotion: emotion(r.emotion), confidence: r.confidence }) : t("plugin_analyst.none")}
              </td>
              <td>{r.fromCustomer ? cls(r.classification) : ""}</td>
              <td>{r.subject}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
