// Report widget of the trading edition: conversations by the customer's detected emotion (spec
// 'Ticket' emotion), the desk's mood board. Spec: emotions.vl.json beside this file.
import { emotionCounts, EMOTIONS } from "@plugins/reports/reports.server";
import type { WidgetData, WidgetInput } from "@plugins/reports/widgets.server";

export async function emotions(input: WidgetInput): Promise<WidgetData> {
  const { t } = input;
  const counts = await emotionCounts(input.range, input.kinds);
  return {
    rows: EMOTIONS.map((e) => ({ emotion: t(`emotion.${e}`), count: counts.get(e) ?? 0 })),
    columns: [
      { key: "emotion", label: t("reports.columns.emotion") },
      { key: "count", label: t("reports.columns.count") },
    ],
  };
}
