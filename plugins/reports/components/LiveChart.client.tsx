// The interactive chart (tooltips, selection) once JavaScript runs: react-vega over the same
// Vega-Lite spec the server drew. Loaded only by report pages, on demand (see ReportUI.tsx).
// Vega's expression interpreter keeps it within the page's CSP (no eval).
// The imports are dynamic because the server bundle inlines this module: static ones would load
// Vega into every server process at start.
import type { ComponentType } from "react";
import type { Result, VisualizationSpec } from "vega-embed";

export type LiveChartProps = { spec: unknown; onReady(): void };

export async function loadLiveChart(): Promise<{ default: ComponentType<LiveChartProps> }> {
  const [{ VegaEmbed }, { expressionInterpreter }] = await Promise.all([import("react-vega"), import("vega-interpreter")]);
  const options = { actions: false, renderer: "svg" as const, ast: true, expr: expressionInterpreter };
  return {
    default: function LiveChart({ spec, onReady }: LiveChartProps) {
      // vega names its container in English ("visualization"); the chart's figure names it in the reader's language
      const onEmbed = ({ view }: Result) => {
        const el = view.container();
        for (const name of ["role", "aria-roledescription", "aria-label"]) el?.removeAttribute(name);
        el?.setAttribute("aria-hidden", "true");
        onReady();
      };
      return <VegaEmbed className="chart-live" spec={spec as VisualizationSpec} options={options} onEmbed={onEmbed} />;
    },
  };
}
