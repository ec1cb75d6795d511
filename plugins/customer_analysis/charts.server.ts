// The customer analysis page's charts: the segments (segments.server.ts) drawn on the server as
// the reports plugin draws its widgets, each with its description and data table.
import { redirect } from "@remix-run/node";
import type { TFunction } from "i18next";
import { guardPluginRoute, viewerOf, type RequestContext } from "~/context.server";
import { menuItemAllows } from "~/plugins/registry.server";
import type { Language } from "~/i18n";
import type { Reader } from "~/conversation/access.server";
import { EMOTIONS } from "@plugins/ai/analyse";
import { barSpec, chartWidget } from "@plugins/reports/widgets.server";
import { customerSegments, OUTCOMES, VOLUMES } from "./segments.server";

/** Spec section 6's rule (client ids 2, 273, 408 or the Pro and Enterprise plans), on the server too. */
export async function requireCustomerAnalysis(request: Request, context: object | undefined) {
  const { ctx } = await guardPluginRoute(request, context);
  const viewer = viewerOf(ctx);
  if (!viewer || !ctx.user || !menuItemAllows("customer_analysis", "customer_analysis", viewer)) throw redirect("/");
  return { ...ctx, user: ctx.user } as RequestContext & { user: NonNullable<RequestContext["user"]> };
}

/** The four segment charts (emotion, channel, volume, outcome) and the totals. */
export async function segmentCharts(reader: Reader, range: { from: number; to: number }, t: TFunction, language: Language) {
  const s = await customerSegments(reader, range);
  const contacts = t("plugin_customer_analysis.columns.contacts");
  const chart = (id: string, dimension: string, rows: { name: string; count: number }[]) =>
    chartWidget(
      id,
      t(`plugin_customer_analysis.charts.${id}`),
      barSpec({ x: "name", y: "count", xTitle: dimension, yTitle: contacts }),
      {
        rows,
        columns: [
          { key: "name", label: dimension },
          { key: "count", label: contacts },
        ],
      },
      t,
      language,
    );
  const emotions = [...EMOTIONS, "none"].map((e) => ({
    name: e === "none" ? t("plugin_customer_analysis.noEmotion") : t(`plugin_ai.emotion.${e}`),
    count: s.emotion[e] ?? 0,
  }));
  const channels = Object.entries(s.channel)
    .sort((x, y) => y[1] - x[1])
    .map(([name, count]) => ({ name: t(`channel.${name}`, { defaultValue: name }), count }));
  const charts = await Promise.all([
    chart("emotion", t("plugin_customer_analysis.columns.emotion"), emotions),
    chart("channel", t("plugin_customer_analysis.columns.channel"), channels),
    chart(
      "volume",
      t("plugin_customer_analysis.columns.volume"),
      VOLUMES.map((v) => ({ name: t(`plugin_customer_analysis.volumes.${v}`), count: s.volume[v] })),
    ),
    chart(
      "outcome",
      t("plugin_customer_analysis.columns.outcome"),
      OUTCOMES.map((o) => ({ name: t(`plugin_customer_analysis.outcomes.${o}`), count: s.outcome[o] })),
    ),
  ]);
  return { charts, contacts: s.contacts, unlinked: s.unlinked };
}
