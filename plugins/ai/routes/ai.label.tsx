// /ai/label/{kind}/{n}: the agent's final label of a conversation, its emotion and classification
// (linked from the Emotion panel). The AI's prediction is shown and kept beside the label; the
// trading edition's prediction validator compares the two per week. A real form: it works
// without JavaScript; a value outside the lists is refused with the other choice kept.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { conversationPath, type Kind } from "~/conversation/channels";
import { pageMeta } from "~/meta";
import { openConversation } from "../conversation-route.server";
import { CLASSES, EMOTIONS } from "../analyse";
import { ticketAnalysis } from "../analysis.server";
import { finalLabel, isClassification, isEmotion, setFinalLabel } from "../labels.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ticket, kind } = await openConversation(request, context, params);
  const [predicted, label] = await Promise.all([ticketAnalysis(ticket.id), finalLabel(ticket.id)]);
  return json(
    {
      ticketNumber: ticket.ticketNumber,
      title: ticket.title,
      back: conversationPath(kind, ticket.ticketNumber),
      predicted: { emotion: predicted?.customerEmotion ?? "", classification: predicted?.classification ?? "" },
      label: { emotion: label?.emotion ?? "", classification: label?.classification ?? "" },
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { user, ticket, kind } = await openConversation(request, context, params);
  const form = await request.formData();
  const emotion = String(form.get("emotion") ?? "");
  const classification = String(form.get("classification") ?? "");
  const errors: Record<string, string> = {};
  if (emotion && !isEmotion(emotion)) errors.emotion = "plugin_ai.label.invalid";
  if (classification && !isClassification(classification)) errors.classification = "plugin_ai.label.invalid";
  if (!emotion && !classification) errors.emotion = "plugin_ai.label.empty";
  if (Object.keys(errors).length) return json({ errors, values: { emotion, classification } }, { status: 400 });
  await setFinalLabel({ ticketId: ticket.id, userId: user.id, emotion, classification });
  return redirect(`${conversationPath(kind, ticket.ticketNumber)}#panel-ai-emotion`);
}

export const meta = pageMeta("plugin_ai.label.title");

export default function FinalLabel() {
  const data = useLoaderData<typeof loader>();
  const refused = useActionData<typeof action>();
  const { t } = useTranslation();
  const values = refused?.values ?? {
    emotion: data.label.emotion || data.predicted.emotion,
    classification: data.label.classification || data.predicted.classification,
  };
  const error = (field: "emotion" | "classification") =>
    refused?.errors[field] ? (
      <span className="field-error" role="alert" id={`label-${field}-error`}>
        {t(refused.errors[field])}
      </span>
    ) : null;
  return (
    <section className="settings stack narrow">
      <h1>{t("plugin_ai.label.title")}</h1>
      <p>
        <Link to={data.back}>{t("plugin_ai.translate.back", { number: String(data.ticketNumber), title: data.title })}</Link>
      </p>
      <p data-testid="ai-predicted">
        {t("plugin_ai.label.predicted", {
          emotion: data.predicted.emotion ? t(`plugin_ai.emotion.${data.predicted.emotion}`) : t("plugin_ai.label.none"),
          classification: data.predicted.classification ? t(`plugin_ai.class.${data.predicted.classification}`) : t("plugin_ai.label.none"),
        })}
      </p>
      <Form method="post" className="stack">
        <label className="stack">
          {t("plugin_ai.label.emotion")}
          <select
            name="emotion"
            defaultValue={values.emotion}
            aria-invalid={!!refused?.errors.emotion}
            aria-describedby={refused?.errors.emotion ? "label-emotion-error" : undefined}
          >
            <option value="">{t("plugin_ai.label.none")}</option>
            {EMOTIONS.map((e) => (
              <option key={e} value={e}>
                {t(`plugin_ai.emotion.${e}`)}
              </option>
            ))}
          </select>
          {error("emotion")}
        </label>
        <label className="stack">
          {t("plugin_ai.label.classification")}
          <select
            name="classification"
            defaultValue={values.classification}
            aria-invalid={!!refused?.errors.classification}
            aria-describedby={refused?.errors.classification ? "label-classification-error" : undefined}
          >
            <option value="">{t("plugin_ai.label.none")}</option>
            {CLASSES.map((c) => (
              <option key={c} value={c}>
                {t(`plugin_ai.class.${c}`)}
              </option>
            ))}
          </select>
          {error("classification")}
        </label>
        <button type="submit" className="button primary">
          {t("plugin_ai.label.save")}
        </button>
      </Form>
    </section>
  );
}
