// Pieces shared by the report pages: the GET date-range form and the chart cards.
import { Suspense, lazy, useEffect, useState, type ComponentType } from "react";
import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { LiveChartProps } from "./LiveChart.client";

export interface RangeFormValues {
  start: string;
  end: string;
  interval?: string;
}

/** A plain GET form: works without JavaScript, keeps what was typed, says what is wrong. */
export function RangeForm({ values, error, intervals, action }: { values: RangeFormValues; error?: string | null; intervals?: string[]; action?: string }) {
  const { t } = useTranslation();
  return (
    <Form method="get" action={action} className="report-range card" aria-describedby={error ? "range-error" : undefined}>
      <fieldset>
        <legend>{t("reports.range.legend")}</legend>
        <label>
          {t("reports.range.start")}
          <input
            name="start"
            defaultValue={values.start}
            placeholder={t("reports.range.hint")}
            inputMode="numeric"
            title={t("reports.range.hint")}
            size={11}
            aria-invalid={!!error}
          />
        </label>
        <label>
          {t("reports.range.end")}
          <input
            name="end"
            defaultValue={values.end}
            placeholder={t("reports.range.hint")}
            inputMode="numeric"
            title={t("reports.range.hint")}
            size={11}
            aria-invalid={!!error}
          />
        </label>
        {intervals ? (
          <label>
            {t("reports.range.interval")}
            <select name="interval" defaultValue={values.interval}>
              {intervals.map((i) => (
                <option key={i} value={i}>
                  {t(`reports.intervals.${i}`)}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <button type="submit">{t("reports.range.search")}</button>
      </fieldset>
      {error ? (
        <p className="field-error" role="alert" id="range-error">
          {t(`reports.range.errors.${error}`)}
        </p>
      ) : null}
    </Form>
  );
}

export interface ChartWidget {
  id: string;
  title: string;
  /** The chart in words (widgets.server.ts describeChart). */
  description: string;
  svg: string;
  spec?: unknown;
  data: { rows: Record<string, string | number | null>[]; columns: { key: string; label: string }[]; note?: string };
}

type Live = ComponentType<LiveChartProps>;

/**
 * The server's SVG first (JS off, printing); with JavaScript the interactive chart is loaded on
 * demand and takes over once drawn, so vega never weighs on pages that are not reports. To
 * assistive technology it is one image, named by the title and described by the caption; the
 * numbers are in the data table below.
 */
function Chart({ widget, describedBy }: { widget: ChartWidget; describedBy: string }) {
  const { t } = useTranslation();
  const [LiveChart, setLiveChart] = useState<Live | null>(null);
  const [ready, setReady] = useState(false);
  useEffect(() => {
    setLiveChart(() => lazy(() => import("./LiveChart.client").then((m) => m.loadLiveChart())));
  }, []);
  return (
    <div
      className="chart"
      data-live={ready ? "yes" : undefined}
      role="img"
      aria-label={t("reports.widget.chartOf", { title: widget.title })}
      aria-describedby={describedBy}
    >
      <div className="chart-svg" hidden={ready} dangerouslySetInnerHTML={{ __html: widget.svg }} />
      {LiveChart ? (
        // laid out (for its container width) but invisible until drawn, over the server's SVG
        <div className="chart-live-wrap" aria-hidden={!ready}>
          <Suspense fallback={null}>
            <LiveChart spec={widget.spec} onReady={() => setReady(true)} />
          </Suspense>
        </div>
      ) : null}
    </div>
  );
}

export function ChartCard({ widget, csvUrl }: { widget: ChartWidget; csvUrl?: string }) {
  const { t, i18n } = useTranslation();
  const headingId = `widget-${widget.id}-title`;
  const descriptionId = `widget-${widget.id}-description`;
  const number = new Intl.NumberFormat(i18n.language);
  return (
    <section className="chart-card card" id={`widget-${widget.id}`} aria-labelledby={headingId} data-widget={widget.id}>
      <h2 id={headingId}>{widget.title}</h2>
      <figure className="chart-figure" aria-labelledby={headingId}>
        <Chart widget={widget} describedBy={descriptionId} />
        <figcaption id={descriptionId} className="chart-description">
          {widget.description}
        </figcaption>
      </figure>
      {widget.data.note ? <p className="chart-note">{widget.data.note}</p> : null}
      <details className="chart-data">
        <summary>{t("reports.widget.dataTable")}</summary>
        {widget.data.rows.length ? (
          <table>
            <caption className="sr-only">{widget.title}</caption>
            <thead>
              <tr>
                {widget.data.columns.map((c) => (
                  <th key={c.key} scope="col">
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {widget.data.rows.map((row, i) => (
                <tr key={i}>
                  {widget.data.columns.map((c) => (
                    <td key={c.key}>{typeof row[c.key] === "number" ? number.format(row[c.key] as number) : row[c.key]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>{t("reports.widget.empty")}</p>
        )}
      </details>
      {csvUrl ? (
        <a className="chart-csv" href={csvUrl} download>
          {t("reports.widget.csv")}
        </a>
      ) : null}
    </section>
  );
}
