// /ai/language/{kind}/{n}: the conversation's language (spec section 4). Choosing a language
// different from the ticket's translates the visitor's messages through the workspace's
// OpenAI-compatible adapter and goes back to the conversation, where the Translation panel shows
// them beside the originals (which never change); the same language only sets it. Without an
// outside adapter the page says translation is not configured; when the model does not answer, it
// says so and keeps the choice. A real form: it works without JavaScript.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { conversationPath, type Kind } from "~/conversation/channels";
import { LANGUAGES, LANGUAGE_NAMES } from "~/i18n";
import { pageMeta } from "~/meta";
import { openConversation } from "../conversation-route.server";
import { aiSettings } from "../settings.server";
import { usesOutside } from "../service.server";
import { chosenLanguage, isUiLanguage, setLanguage, ticketLanguage } from "../translate.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ticket, kind } = await openConversation(request, context, params);
  const settings = await aiSettings();
  return json(
    {
      ticketNumber: ticket.ticketNumber,
      title: ticket.title,
      back: conversationPath(kind, ticket.ticketNumber),
      own: await ticketLanguage(ticket.id),
      chosen: await chosenLanguage(ticket.id),
      configured: settings.adapter !== "off",
      offline: settings.adapter !== "off" && !usesOutside(settings),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { ticket, kind } = await openConversation(request, context, params);
  const form = await request.formData();
  const lang = String(form.get("lang") ?? "");
  if (!isUiLanguage(lang)) return json({ refused: "plugin_ai.translate.error.lang", lang }, { status: 400 });
  const done = await setLanguage(ticket.id, lang);
  const back = conversationPath(kind, ticket.ticketNumber);
  if (!done.translate || done.answer?.state === "ok") return redirect(`${back}?translated=${lang}#panel-ai-translate`);
  if (done.answer?.state === "not_configured") return json({ refused: "plugin_ai.translate.notConfigured", lang }, { status: 503 });
  if (done.answer?.state === "no_pair")
    return json({ refused: "plugin_ai.translate.noPair", values: { source: nameOf(done.answer.source), target: nameOf(lang) }, lang }, { status: 503 });
  return json(
    { refused: "plugin_ai.translate.unavailable", reason: done.answer?.state === "unavailable" ? done.answer.reason : "network", lang },
    { status: 503 },
  );
}

export const meta = pageMeta("plugin_ai.translate.title");

export default function ConversationLanguage() {
  const data = useLoaderData<typeof loader>();
  const refused = useActionData<typeof action>();
  const { t } = useTranslation();
  const selected = refused?.lang ?? data.chosen ?? data.own ?? "en";
  return (
    <section className="settings stack narrow">
      <h1>{t("plugin_ai.translate.title")}</h1>
      <p>
        <Link to={data.back}>{t("plugin_ai.translate.back", { number: String(data.ticketNumber), title: data.title })}</Link>
      </p>
      <p data-testid="ai-own-language">
        {data.own && isKnown(data.own) ? t("plugin_ai.translate.own", { language: LANGUAGE_NAMES[data.own] }) : t("plugin_ai.translate.ownUnknown")}
      </p>
      {!data.configured || data.offline ? (
        <p className="notice" data-testid="ai-translate-state">
          {t(data.configured ? "plugin_ai.translate.offline" : "plugin_ai.translate.notConfigured")}
        </p>
      ) : null}
      {refused ? (
        <p className="field-error" role="alert" data-testid="ai-translate-refused">
          {t(refused.refused, "values" in refused ? (refused.values as Record<string, string>) : undefined)}{" "}
          {"reason" in refused && refused.reason ? t(`plugin_ai.reason.${refused.reason}`) : ""}
        </p>
      ) : null}
      <Form method="post" className="stack">
        <fieldset className="stack">
          <legend>{t("plugin_ai.translate.choose")}</legend>
          {LANGUAGES.map((lang) => (
            <label key={lang} className="inline">
              <input type="radio" name="lang" value={lang} defaultChecked={selected === lang} /> <span lang={lang}>{LANGUAGE_NAMES[lang]}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" className="button primary">
          {t("plugin_ai.translate.submit")}
        </button>
      </Form>
    </section>
  );
}

const isKnown = (code: string): code is (typeof LANGUAGES)[number] => (LANGUAGES as readonly string[]).includes(code);

const nameOf = (code: string) => (isKnown(code) ? LANGUAGE_NAMES[code] : code || "?");
