// /upload: the voice-analysis page (spec section 2). An agent uploads a recording (WAV, or mp3, ogg,
// webm, m4a or flac through ffmpeg when installed) (and, if
// they have one, its transcript); the page answers energy and pace per 5-second segment from the
// audio itself (plugins/ai/voice.ts, levels 0/25/50/75/100) as a bar chart, and the transcript's
// emotions as a pie chart, both drawn on the server with the reports plugin's Vega (each with its
// description and data table). Size and type are checked before the audio is read; a refusal
// says why in the reader's language. A real multipart form: it works without JavaScript.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { TopLevelSpec } from "vega-lite";
import { guardPluginRoute, requestContext } from "~/context.server";
import { translatorFor } from "~/i18n.server";
import { pageMeta } from "~/meta";
import { readVoiceUpload } from "@plugins/ai/voice.server";
import { VOICE_MAX_BYTES } from "@plugins/ai/voice";
import { ChartCard, type ChartWidget } from "@plugins/reports/components/ReportUI";
import { chartWidget, type WidgetData } from "@plugins/reports/widgets.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user) throw redirect("/");
  return json({ max: VOICE_MAX_BYTES / 1024 / 1024 });
}

const LEVEL_KEYS: Record<number, string> = { 0: "l0", 25: "l25", 50: "l50", 75: "l75", 100: "l100" };

export async function action({ request, context }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user) throw redirect("/");
  const answer = await readVoiceUpload(request);
  if (!answer.ok)
    return json({ refused: { key: answer.key, values: answer.values ?? {} }, charts: [] as ChartWidget[], segments: [] }, { status: answer.status });
  const language = (await requestContext(request, context)).language;
  const t = translatorFor(language);
  const { result } = answer;
  const energy = t("plugin_voice_analysis.result.energy");
  const pace = t("plugin_voice_analysis.result.pace");
  const barRows = result.segments.flatMap((s) => {
    const segment = t("plugin_voice_analysis.result.segment", { start: String(s.start), end: String(s.end) });
    return [
      { segment, measure: energy, level: s.energy },
      { segment, measure: pace, level: s.pace },
    ];
  });
  const bar = {
    width: "container",
    height: 220,
    mark: "bar",
    encoding: {
      x: { field: "segment", type: "nominal", sort: null, title: t("plugin_voice_analysis.result.segmentTitle"), axis: { labelAngle: 0 } },
      xOffset: { field: "measure" },
      y: { field: "level", type: "quantitative", scale: { domain: [0, 100] }, title: t("plugin_voice_analysis.result.level") },
      color: { field: "measure", type: "nominal", title: t("plugin_voice_analysis.result.measure") },
    },
  } as unknown as TopLevelSpec;
  const barData = {
    rows: barRows,
    columns: [
      { key: "segment", label: t("plugin_voice_analysis.result.segmentTitle") },
      { key: "measure", label: t("plugin_voice_analysis.result.measure") },
      { key: "level", label: t("plugin_voice_analysis.result.level") },
    ],
  };
  const widget = (id: string, title: string, spec: TopLevelSpec, data: WidgetData) => chartWidget(id, title, spec, data, t, language);
  const charts = [await widget("voice-levels", t("plugin_voice_analysis.result.levelsTitle"), bar, barData)];
  const pieRows = Object.entries(result.percentage)
    .filter(([, share]) => share > 0)
    .map(([emotion, share]) => ({ emotion: t(`plugin_ai.emotion.${emotion}`), share }));
  if (pieRows.length) {
    const pie = {
      width: 220,
      height: 220,
      mark: { type: "arc" },
      encoding: {
        theta: { field: "share", type: "quantitative" },
        color: { field: "emotion", type: "nominal", title: t("plugin_voice_analysis.result.emotion") },
      },
    } as unknown as TopLevelSpec;
    const pieData = {
      rows: pieRows,
      columns: [
        { key: "emotion", label: t("plugin_voice_analysis.result.emotion") },
        { key: "share", label: t("plugin_voice_analysis.result.share") },
      ],
    };
    charts.push(await widget("voice-emotions", t("plugin_voice_analysis.result.emotionsTitle"), pie, pieData));
  }
  return json({
    refused: null,
    charts,
    segments: result.segments.map((s) => ({ ...s, energyKey: LEVEL_KEYS[s.energy], paceKey: LEVEL_KEYS[s.pace] })),
    transcript: result.transcript,
  });
}

export const meta = pageMeta("plugin_voice_analysis.title");

export default function VoiceUpload() {
  const data = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const { t } = useTranslation();
  return (
    <section className="stack">
      <h1>{t("plugin_voice_analysis.title")}</h1>
      <p>{t("plugin_voice_analysis.intro", { max: String(data.max) })}</p>
      <Form method="post" encType="multipart/form-data" className="stack narrow">
        <label className="stack">
          {t("plugin_voice_analysis.form.file")}
          <input type="file" name="attachment" accept=".wav,.mp3,.ogg,.oga,.opus,.webm,.m4a,.mp4,.flac,audio/*" required />
        </label>
        <label className="stack">
          {t("plugin_voice_analysis.form.transcript")}
          <textarea name="transcript" rows={4} maxLength={20000} />
        </label>
        <button type="submit" className="button primary">
          {t("plugin_voice_analysis.form.submit")}
        </button>
      </Form>
      {answer?.refused ? (
        <p className="field-error" role="alert" data-testid="voice-refused">
          {t(answer.refused.key, answer.refused.values)}
        </p>
      ) : null}
      {answer && !answer.refused ? (
        <div className="stack" data-testid="voice-result">
          <h2>{t("plugin_voice_analysis.result.title")}</h2>
          <ul>
            {answer.segments.map((s) => (
              <li key={s.start}>
                {t("plugin_voice_analysis.result.line", {
                  segment: t("plugin_voice_analysis.result.segment", { start: String(s.start), end: String(s.end) }),
                  energy: t(`plugin_voice_analysis.energy.${s.energyKey}`),
                  pace: t(`plugin_voice_analysis.pace.${s.paceKey}`),
                })}
              </li>
            ))}
          </ul>
          {!answer.transcript ? <p className="muted">{t("plugin_voice_analysis.result.noTranscript")}</p> : null}
          {answer.charts.map((chart) => (
            <ChartCard key={chart.id} widget={chart} />
          ))}
        </div>
      ) : null}
    </section>
  );
}
