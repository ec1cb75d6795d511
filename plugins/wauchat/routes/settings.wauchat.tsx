// /settings/wauchat (admins): the WAUCHAT bot. Which messaging accounts it answers on, its texts in
// English, Malay and Chinese, keyword rules and handover words. Every form is a plain post that
// works without JavaScript; a refusal shows its errors beside the form it came from.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute, requireAdmin } from "~/context.server";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { AdminOnlyBoundary } from "~/components/AdminOnly";
import { FormMessage } from "~/components/FormMessage";
import { TableScroll } from "~/components/TableScroll";
import { refusalKey, useFormResult, type FormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { deleteRule, KEYWORDS_MAX, loadConfig, messagingAccounts, saveHandoverWords, saveRule, saveTexts, setBotForAccount, TEXT_MAX } from "../config.server";
import { BOT_LANGUAGES, BUILT_IN_HANDOVER_WORDS } from "../flow";

const SAVED = ["account", "texts", "handover", "rule", "deleted"] as const;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const saved = new URL(request.url).searchParams.get("saved");
  const [config, accounts] = await Promise.all([loadConfig(), messagingAccounts()]);
  return json(
    { ...config, accounts, builtInWords: BUILT_IN_HANDOVER_WORDS, saved: (SAVED as readonly string[]).includes(saved ?? "") ? saved : null },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  const by = { actor: { id: user.id, name: user.username }, ip: context.clientIp };
  const intent = String(form.get("intent") ?? "");
  const id = Number(form.get("id"));
  const done =
    intent === "account"
      ? await setBotForAccount(id, form.get("on") === "1", by)
      : intent === "texts"
        ? await saveTexts(form, by)
        : intent === "handover"
          ? await saveHandoverWords(form, by)
          : intent === "rule_add"
            ? await saveRule(form, by)
            : intent === "rule_save" && Number.isSafeInteger(id)
              ? await saveRule(form, by, id)
              : intent === "rule_delete" && Number.isSafeInteger(id)
                ? await deleteRule(id, by)
                : null;
  if (!done) throw new Response("Bad Request", { status: 400 });
  if (!done.ok) return refuse(done.result, done.status);
  const saved = intent === "rule_delete" ? "deleted" : intent.startsWith("rule") ? "rule" : intent;
  return redirect(`/settings/wauchat?saved=${saved}`);
}

export const meta = pageMeta("plugin_wauchat.title");

/** A labelled field with its error tied to it. */
function Field(props: { id: string; name: string; label: string; result?: FormResult; value: string; area?: boolean; max: number; hint?: string }) {
  const { t } = useTranslation();
  const error = props.result?.errors[props.name];
  const described = [props.hint ? `${props.id}-hint` : "", error ? `${props.id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const common = {
    id: props.id,
    name: props.name,
    defaultValue: props.result?.values[props.name] ?? props.value,
    maxLength: props.max,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": described,
  };
  return (
    <div className="stack">
      <label htmlFor={props.id}>{props.label}</label>
      {/* bot-text: what the bot says, written by admins (user data, not interface text) */}
      {props.area ? <textarea rows={4} className="bot-text" {...common} /> : <input type="text" {...common} />}
      {props.hint ? (
        <p id={`${props.id}-hint`} className="muted">
          {props.hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${props.id}-error`} className="field-error">
          {t(error)}
        </p>
      ) : null}
    </div>
  );
}

function RuleForm({ rule, result }: { rule?: { id: number; keywords: string; answer: string; handover: boolean }; result?: FormResult }) {
  const { t } = useTranslation();
  const prefix = rule ? `rule-${rule.id}` : "rule-new";
  const handover = result ? result.values.handover === "1" : !!rule?.handover;
  return (
    <Form
      method="post"
      className="stack narrow"
      noValidate
      aria-label={rule ? t("plugin_wauchat.rules.editNamed", { keywords: rule.keywords }) : t("plugin_wauchat.rules.add")}
    >
      {/* an edit's intent is its button's (Save first: Enter in a field saves) */}
      {rule ? null : <input type="hidden" name="intent" value="rule_add" />}
      {rule ? <input type="hidden" name="id" value={rule.id} /> : null}
      <FormMessage result={result} />
      <Field
        id={`${prefix}-keywords`}
        name="keywords"
        label={t("plugin_wauchat.rules.keywords")}
        hint={t("plugin_wauchat.rules.keywordsHint")}
        result={result}
        value={rule?.keywords ?? ""}
        max={KEYWORDS_MAX}
      />
      <Field id={`${prefix}-answer`} name="answer" label={t("plugin_wauchat.rules.answer")} result={result} value={rule?.answer ?? ""} area max={TEXT_MAX} />
      <label className="inline">
        <input type="checkbox" name="handover" value="1" defaultChecked={handover} />
        {t("plugin_wauchat.rules.handover")}
      </label>
      <div className="inline-form">
        <button type="submit" className="button primary" {...(rule ? { name: "intent", value: "rule_save" } : {})}>
          {rule ? t("plugin_wauchat.save") : t("plugin_wauchat.rules.addButton")}
        </button>
        {rule ? (
          <button type="submit" name="intent" value="rule_delete" className="button" formNoValidate>
            {t("plugin_wauchat.rules.delete")}
          </button>
        ) : null}
      </div>
    </Form>
  );
}

export default function WauchatSettings() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const result = useFormResult();
  const of = (intent: string) => (result?.intent === intent ? result : undefined);
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <h1>{t("plugin_wauchat.title")}</h1>
      <p className="muted">{t("plugin_wauchat.help")}</p>
      {data.saved ? (
        <p className="notice" role="status">
          {t(`plugin_wauchat.saved.${data.saved}`)}
        </p>
      ) : null}

      <section className="stack" aria-labelledby="wauchat-accounts">
        <h2 id="wauchat-accounts">{t("plugin_wauchat.accounts.title")}</h2>
        <p className="muted">{t("plugin_wauchat.accounts.help")}</p>
        <FormMessage result={of("account")} />
        {data.accounts.length ? (
          <TableScroll label={t("plugin_wauchat.accounts.title")}>
            <table className="payment-table">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_wauchat.accounts.name")}</th>
                  <th scope="col">{t("plugin_wauchat.accounts.kind")}</th>
                  <th scope="col">{t("plugin_wauchat.accounts.bot")}</th>
                </tr>
              </thead>
              <tbody>
                {data.accounts.map((a) => (
                  <tr key={a.id} data-testid={`wauchat-account-${a.id}`}>
                    <td>
                      {a.name} <code>{a.address}</code>
                    </td>
                    <td>{t(`channel.${a.kind}`)}</td>
                    <td>
                      <Form method="post" className="inline-form">
                        <input type="hidden" name="intent" value="account" />
                        <input type="hidden" name="id" value={a.id} />
                        <input type="hidden" name="on" value={a.bot ? "0" : "1"} />
                        <span>{a.bot ? t("plugin_wauchat.accounts.on") : t("plugin_wauchat.accounts.off")}</span>
                        <button
                          type="submit"
                          className="button"
                          aria-label={t(a.bot ? "plugin_wauchat.accounts.turnOffNamed" : "plugin_wauchat.accounts.turnOnNamed", { name: a.name })}
                        >
                          {a.bot ? t("plugin_wauchat.accounts.turnOff") : t("plugin_wauchat.accounts.turnOn")}
                        </button>
                      </Form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p className="muted">
            {t("plugin_wauchat.accounts.none")} <Link to="/settings/channels">{t("plugin_channels.title")}</Link>
          </p>
        )}
      </section>

      <section className="stack" aria-labelledby="wauchat-rules">
        <h2 id="wauchat-rules">{t("plugin_wauchat.rules.title")}</h2>
        <p className="muted">{t("plugin_wauchat.rules.help")}</p>
        {data.rules.length === 0 ? <p className="muted">{t("plugin_wauchat.rules.none")}</p> : null}
        {data.rules.map((rule) => (
          <article key={`${rule.id}-${refusalKey(of(`rule_${rule.id}`), "saved")}`} className="card" data-testid={`wauchat-rule-${rule.id}`}>
            <RuleForm rule={rule} result={of(`rule_${rule.id}`)} />
          </article>
        ))}
        <section className="card stack" aria-labelledby="wauchat-rule-add">
          <h3 id="wauchat-rule-add">{t("plugin_wauchat.rules.add")}</h3>
          <RuleForm key={refusalKey(of("rule_add"), "new")} result={of("rule_add")} />
        </section>
      </section>

      <section className="stack" aria-labelledby="wauchat-handover">
        <h2 id="wauchat-handover">{t("plugin_wauchat.handover.title")}</h2>
        <Form method="post" className="stack narrow" noValidate key={refusalKey(of("handover"), "handover")}>
          <input type="hidden" name="intent" value="handover" />
          <FormMessage result={of("handover")} />
          <Field
            id="wauchat-handover-words"
            name="handoverWords"
            label={t("plugin_wauchat.handover.words")}
            hint={t("plugin_wauchat.handover.hint", { words: data.builtInWords.join(", ") })}
            result={of("handover")}
            value={data.handoverWords}
            max={KEYWORDS_MAX}
          />
          <button type="submit" className="button primary">
            {t("plugin_wauchat.save")}
          </button>
        </Form>
      </section>

      <section className="stack" aria-labelledby="wauchat-texts">
        <h2 id="wauchat-texts">{t("plugin_wauchat.texts.title")}</h2>
        <p className="muted">{t("plugin_wauchat.texts.help")}</p>
        <Form method="post" className="stack narrow" noValidate key={refusalKey(of("texts"), "texts")}>
          <input type="hidden" name="intent" value="texts" />
          <FormMessage result={of("texts")} />
          <Field
            id="wauchat-text-welcome"
            name="text.welcome"
            label={t("plugin_wauchat.texts.welcome")}
            result={of("texts")}
            value={data.texts.welcome}
            area
            max={TEXT_MAX}
          />
          {BOT_LANGUAGES.map((lang) => (
            <fieldset key={lang} className="stack">
              <legend>{t(`plugin_wauchat.language.${lang}`)}</legend>
              {["greeting", "productMenu", "notUnderstood", "handover"].map((k) => (
                <Field
                  key={k}
                  id={`wauchat-text-${k}-${lang}`}
                  name={`text.${k}.${lang}`}
                  label={t(`plugin_wauchat.texts.${k}`)}
                  result={of("texts")}
                  value={data.texts[`${k}.${lang}`]}
                  area
                  max={TEXT_MAX}
                />
              ))}
            </fieldset>
          ))}
          <button type="submit" className="button primary">
            {t("plugin_wauchat.save")}
          </button>
        </Form>
      </section>
    </section>
  );
}

export { AdminOnlyBoundary as ErrorBoundary };
