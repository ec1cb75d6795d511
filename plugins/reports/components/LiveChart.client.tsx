// The interactive chart (tooltips, selection) once JavaScript runs: react-vega over the same
// Vega-Lite spec the server drew. Loaded only by report pages, on demand (see Chart.tsx).
// Vega's expression interpreter keeps it within the page's CSP (no eval).
import { VegaEmbed } from "react-vega";
import { expressionInterpreter } from "vega-interpreter";
import type { VisualizationSpec } from "vega-embed";

const OPTIONS = { actions: false, renderer: "svg" as const, ast: true, expr: expressionInterpreter };

export default function LiveChart({ spec, onReady }: { spec: unknown; onReady(): void }) {
  return <VegaEmbed className="chart-live" spec={spec as VisualizationSpec} options={OPTIONS} onEmbed={onReady} />;
}
