// What the analyst pages share: the heading, the range form and the chart cards.
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { ChartCard, RangeForm, type ChartWidget } from "@plugins/reports/components/ReportUI";

export function AnalystPage(props: {
  title: string;
  intro: string;
  path: string;
  values: { start: string; end: string };
  error: string | null;
  charts: ChartWidget[];
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <section className="report-page stack" data-testid="analyst-page">
      <h1>{t(props.title)}</h1>
      <p>{t(props.intro)}</p>
      <RangeForm action={props.path} values={props.values} error={props.error} />
      <div className="report-grid">
        {props.charts.map((w) => (
          <ChartCard key={w.id} widget={w} />
        ))}
      </div>
      {props.children}
    </section>
  );
}
