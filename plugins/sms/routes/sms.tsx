// /sms (agents and admins): send one SMS, or the same SMS to many numbers (one per line), from an
// SMS account the user may use; /sms/sent?m=... shows what became of each recipient's message
// (queued, sent, delivered, failed with the gateway's words), and /sms lists the user's latest.
// A plain <form method="post">: it works without JavaScript, a refusal keeps what was typed, and
// its request key makes a double submit send once. With JavaScript the states refresh themselves.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation, useRevalidator } from "@remix-run/react";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import { guardPluginRoute } from "~/context.server";
import { conversationPath } from "~/conversation/channels";
import { deliveryErrorText } from "~/conversation/delivery";
import { formResult, formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { TableScroll } from "~/components/TableScroll";
import { KeyReused, once, requestKeyOfRequest } from "~/request-keys.server";
import { formatDate, formatTime } from "~/time";
import { pageMeta } from "~/meta";
import { BODY_MAX, FIELDS, RECIPIENTS_MAX } from "../limits";
import { sendSms, smsAccounts, smsStates, type SmsState } from "../send.server";

const PATH = "/sms";
const SENT_PATH = "/sms/sent";
const RECENT = 20;
/** States that may still change: the page looks again while one is shown (with JavaScript). */
const MOVING = new Set(["queued", "sending", "waiting", "sent"]);

const idsOf = (value: string | null) =>
  [...new Set((value ?? "").split(",").map(Number))].filter((n) => Number.isSafeInteger(n) && n > 0).slice(0, RECIPIENTS_MAX);

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const user = ctx.user!;
  const rest = params["*"];
  if (rest !== undefined && rest !== "" && rest !== "sent") throw new Response("Not Found", { status: 404 });
  const url = new URL(request.url);
  const sent = rest === "sent" ? await smsStates(user, { ids: idsOf(url.searchParams.get("m")) }) : null;
  const [accounts, recent] = await Promise.all([smsAccounts(user), sent ? Promise.resolve([]) : smsStates(user, { sentBy: user.id, limit: RECENT })]);
  return json(
    {
      accounts: accounts.map((a) => ({ id: a.id, name: a.name, address: a.address })),
      isAdmin: user.type === "admin",
      sent,
      recent,
      timeZone: ctx.workspace.timeZone,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const user = ctx.user!;
  const form = await request.formData();
  const values = formValues(form, FIELDS);
  const key = requestKeyOfRequest(request, `user:${user.id}`, "sms.send", formValues(form));
  const outcome = await once(
    key,
    () => sendSms(user, values),
    (stored) => ({ ok: true as const, messageIds: (stored as { messageIds: number[] }).messageIds }),
  ).catch((error) => {
    if (error instanceof KeyReused) return { ok: false as const, result: formResult({ message: "conversation.sentBefore", values }), status: 422 };
    throw error;
  });
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  return redirect(`${SENT_PATH}?m=${outcome.messageIds.join(",")}`);
}

export const meta = pageMeta("plugin_sms.title");

/** A recipient's state in words: the conversation's delivery texts, a failure with the gateway's own words. */
function stateText(t: TFunction, s: Pick<SmsState, "state" | "error">) {
  const reason = deliveryErrorText(t, s.error);
  switch (s.state) {
    case "":
      return "";
    case "failed":
      return `${t("conversation.delivery.failed")}: ${t("conversation.sendFailed", { error: reason })}`;
    case "waiting":
      return t("conversation.delivery.waiting", { reason });
    case "queued":
      return s.error ? t("conversation.delivery.retrying", { error: reason }) : t("conversation.delivery.queued");
    default:
      return t(`conversation.delivery.${s.state}`);
  }
}

function StatesTable({ rows, label, timeZone }: { rows: SmsState[]; label: string; timeZone: string }) {
  const { t } = useTranslation();
  return (
    <TableScroll label={label}>
      <table className="payment-table sms-states">
        <thead>
          <tr>
            <th scope="col">{t("plugin_sms.col.number")}</th>
            <th scope="col">{t("plugin_sms.col.state")}</th>
            <th scope="col">{t("plugin_sms.col.text")}</th>
            <th scope="col">{t("plugin_sms.col.conversation")}</th>
            <th scope="col">{t("plugin_sms.col.at")}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.messageId} data-testid={`sms-${r.messageId}`} data-state={r.state}>
              <td>
                <code>{r.phone}</code>
              </td>
              <td className={r.state === "failed" ? "field-error" : undefined}>{stateText(t, r)}</td>
              <td>{r.text.length > 80 ? `${r.text.slice(0, 80)}…` : r.text}</td>
              <td>
                <Link to={conversationPath("ticket", r.ticketNumber)}>#{r.ticketNumber}</Link>
              </td>
              <td>
                <time dateTime={new Date(r.at).toISOString()}>{`${formatDate(r.at, timeZone)} ${formatTime(r.at, timeZone)}`}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function SendForm() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult();
  const navigation = useNavigation();
  const location = useLocation();
  const busy = navigation.state === "submitting" && navigation.formAction === PATH;
  const errors = failed?.errors ?? {};
  const value = (name: (typeof FIELDS)[number], fallback = "") => failed?.values[name] ?? fallback;
  /** A labelled control with its help and error tied to it (aria-describedby). */
  const row = (name: (typeof FIELDS)[number], label: string, control: (a: Record<string, unknown>) => JSX.Element, help?: string) => {
    const id = `sms-${name}`;
    const describedBy = [help ? `${id}-help` : "", errors[name] ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
    return (
      <div className="stack">
        <label htmlFor={id}>{label}</label>
        {control({ id, name, defaultValue: value(name), "aria-invalid": !!errors[name], "aria-describedby": describedBy })}
        {help ? (
          <p id={`${id}-help`} className="muted">
            {help}
          </p>
        ) : null}
        {errors[name] ? (
          <p id={`${id}-error`} className="field-error">
            {t(errors[name], { max: BODY_MAX, ...failed?.messageValues })}
          </p>
        ) : null}
      </div>
    );
  };
  return (
    <Form method="post" action={PATH} noValidate className="stack narrow" aria-labelledby="sms-send" key={refusalKey(failed, location.key)}>
      <RequestKeyInput />
      <FormMessage result={failed} />
      {row("account", t("plugin_sms.page.account"), (a) => (
        <select {...a} defaultValue={value("account", String(data.accounts[0]?.id ?? ""))}>
          {data.accounts.map((account) => (
            <option key={account.id} value={String(account.id)}>
              {`${account.name} (${account.address})`}
            </option>
          ))}
        </select>
      ))}
      {row(
        "to",
        t("plugin_sms.page.to"),
        (a) => (
          <textarea {...a} rows={4} required autoComplete="off" placeholder="+60123456789" />
        ),
        t("plugin_sms.page.toHelp", { max: RECIPIENTS_MAX }),
      )}
      {row(
        "message",
        t("plugin_sms.page.message"),
        (a) => (
          <textarea {...a} rows={5} required maxLength={BODY_MAX} />
        ),
        t("plugin_sms.page.messageHelp", { max: BODY_MAX }),
      )}
      <div>
        <button type="submit" className="button primary" disabled={busy}>
          {t("plugin_sms.page.send")}
        </button>
      </div>
    </Form>
  );
}

export default function SmsPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const revalidator = useRevalidator();
  const rows = data.sent ?? data.recent;
  const moving = rows.some((r) => MOVING.has(r.state));
  // with JavaScript, the states follow the gateway's receipts for a few minutes
  useEffect(() => {
    if (!moving) return;
    let left = 60;
    const timer = setInterval(() => {
      if (--left <= 0) clearInterval(timer);
      if (revalidator.state === "idle") revalidator.revalidate();
    }, 5000);
    return () => clearInterval(timer);
  }, [moving, revalidator]);

  if (data.sent)
    return (
      <section className="stack sms-page">
        <h1>{t("plugin_sms.title")}</h1>
        <h2 id="sms-sent">{t("plugin_sms.page.sentTitle", { count: data.sent.length })}</h2>
        {data.sent.length ? (
          <StatesTable rows={data.sent} label={t("plugin_sms.page.sentTitle", { count: data.sent.length })} timeZone={data.timeZone} />
        ) : null}
        <p>
          <a href={`${location.pathname}${location.search}`}>{t("plugin_sms.page.refresh")}</a> · <Link to={PATH}>{t("plugin_sms.page.sendAnother")}</Link>
        </p>
      </section>
    );

  return (
    <section className="stack sms-page">
      <h1>{t("plugin_sms.title")}</h1>
      <p className="muted">{t("plugin_sms.page.intro")}</p>
      <section className="card stack" aria-labelledby="sms-send">
        <h2 id="sms-send">{t("plugin_sms.page.sendTitle")}</h2>
        {data.accounts.length ? (
          <SendForm />
        ) : (
          <p className="notice" role="status">
            {t("plugin_sms.noAccounts")}
            {data.isAdmin ? (
              <>
                {" "}
                <Link to="/settings/channels?kind=SMS">{t("plugin_sms.page.addAccount")}</Link>
              </>
            ) : null}
          </p>
        )}
      </section>
      <section className="stack" aria-labelledby="sms-recent">
        <h2 id="sms-recent">{t("plugin_sms.page.recent")}</h2>
        {data.recent.length ? (
          <>
            <StatesTable rows={data.recent} label={t("plugin_sms.page.recent")} timeZone={data.timeZone} />
            <p>
              <a href={PATH}>{t("plugin_sms.page.refresh")}</a>
            </p>
          </>
        ) : (
          <p className="muted">{t("plugin_sms.page.none")}</p>
        )}
      </section>
    </section>
  );
}
