// Report widget of the call-centre edition: calls by the hour of day they came in (workspace
// time), to see when the call centre is busiest. Spec: hours.vl.json beside this file.
import { intervalVolume } from "@plugins/reports/reports.server";
import type { WidgetData, WidgetInput } from "@plugins/reports/widgets.server";
import { formatter } from "~/time";

export async function hours(input: WidgetInput): Promise<WidgetData> {
  const { t, timeZone } = input;
  const points = await intervalVolume(input.range, ["call"], "1h");
  const clock = formatter(timeZone, "clock");
  const byHour = new Array<number>(24).fill(0);
  for (const p of points) byHour[Number(clock.formatToParts(p.at).find((x) => x.type === "hour")!.value) % 24] += p.count;
  return {
    rows: byHour.map((count, hour) => ({ hour: `${String(hour).padStart(2, "0")}:00`, count })),
    columns: [
      { key: "hour", label: t("reports.columns.hour") },
      { key: "count", label: t("reports.columns.calls") },
    ],
  };
}
