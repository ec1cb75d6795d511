// /settings/billing: settings section 17, subscriptions and billing (admins). The plan, seats and
// expiry; who invoices are made out to (a purchase needs it); the payments and invoices.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requireAdmin } from "~/context.server";
import { AdminOnlyBoundary } from "~/components/AdminOnly";
import { formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { formatDate } from "~/time";
import { SubscriptionSummary } from "../components/SubscriptionSummary";
import { PLAN_KEYS, exponentOf, formatMoney, formatPercent } from "../money";
import { getSubscription, listInvoices, listPayments, saveBilling } from "../payments.server";
import { pageMeta } from "~/meta";

export const SECTION = 17;

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const [sub, payments, invoices] = await Promise.all([getSubscription(), listPayments(), listInvoices()]);
  return json(
    {
      sub,
      saved: new URL(request.url).searchParams.has("saved"),
      payments: payments.map((p) => ({
        ref: p.ref,
        createdAt: p.createdAt,
        plan: p.plan,
        quantity: p.quantity,
        currency: p.currency,
        taxBp: p.taxBp,
        taxMinor: p.taxMinor,
        totalMinor: p.totalMinor,
        status: p.status,
        description: p.description,
      })),
      invoices,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  const values = formValues(form, ["billing_name", "billing_email"]);
  const result = await saveBilling(values.billing_name, values.billing_email, { actor: user, ip: context.clientIp });
  if (!result.ok)
    return refuse(
      result.field === "name"
        ? formResult({ errors: { billing_name: "payment.errors.empty" }, values })
        : formResult({ errors: { billing_email: "payment.errors.email" }, messageValues: { address: values.billing_email }, values }),
    );
  return redirect("/settings/billing?saved=1");
}

export const meta = pageMeta("payment.billingTitle");

export default function Billing() {
  const data = useLoaderData<typeof loader>();
  const failed = useFormResult();
  const errors = failed?.errors ?? {};
  const { t } = useTranslation();
  const money = (minor: number, currency: string) => formatMoney(minor, currency, exponentOf(currency));
  const date = (at: number) => formatDate(at, data.sub.timeZone);
  return (
    <section className="billing-page stack" id={`settings-${SECTION}`}>
      <h1>{t("payment.billingTitle")}</h1>
      {data.saved ? (
        <p className="notice" role="status">
          {t("settings.updated")}
        </p>
      ) : null}
      <SubscriptionSummary sub={data.sub} />
      <p>
        <Link className="button" to="/plan">
          {t("payment.planTitle")}
        </Link>
      </p>
      <section>
        <h2>{t("payment.billingInfo")}</h2>
        <Form method="post" className="stack narrow" noValidate>
          <label>
            {t("payment.billingName")}
            <input
              name="billing_name"
              defaultValue={failed?.values.billing_name ?? data.sub.billingName}
              maxLength={200}
              aria-invalid={!!errors.billing_name}
            />
          </label>
          {errors.billing_name ? (
            <p className="field-error" role="alert">
              {t(errors.billing_name, failed?.messageValues)}
            </p>
          ) : null}
          <label>
            {t("payment.billingEmail")}
            <input
              name="billing_email"
              type="email"
              defaultValue={failed?.values.billing_email ?? data.sub.billingEmail}
              maxLength={200}
              aria-invalid={!!errors.billing_email}
            />
          </label>
          {errors.billing_email ? (
            <p className="field-error" role="alert">
              {t(errors.billing_email, failed?.messageValues)}
            </p>
          ) : null}
          <button type="submit" className="button primary">
            {t("payment.save")}
          </button>
        </Form>
      </section>
      <section>
        <h2>{t("payment.payments")}</h2>
        {data.payments.length ? (
          <table className="payment-table">
            <thead>
              <tr>
                <th>{t("payment.date")}</th>
                <th>{t("payment.ref")}</th>
                <th>{t("payment.plan")}</th>
                <th>{t("payment.seats")}</th>
                <th>{t("payment.sst")}</th>
                <th>{t("payment.total")}</th>
                <th>{t("payment.status")}</th>
              </tr>
            </thead>
            <tbody>
              {data.payments.map((p) => (
                <tr key={p.ref}>
                  <td>{date(p.createdAt)}</td>
                  <td>
                    <code>{p.ref}</code>
                  </td>
                  <td>{t(`payment.plans.${PLAN_KEYS[p.plan]}`)}</td>
                  <td>{p.quantity}</td>
                  <td>
                    {money(p.taxMinor, p.currency)} ({formatPercent(p.taxBp)})
                  </td>
                  <td>{money(p.totalMinor, p.currency)}</td>
                  <td>
                    {t(`payment.statuses.${p.status}`)}
                    {p.description ? ` — ${p.description}` : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>{t("payment.noPayments")}</p>
        )}
      </section>
      <section>
        <h2>{t("payment.invoices")}</h2>
        {data.invoices.length ? (
          <table className="payment-table">
            <thead>
              <tr>
                <th>{t("payment.invoice")}</th>
                <th>{t("payment.date")}</th>
                <th>{t("payment.period")}</th>
                <th>{t("payment.billedTo")}</th>
                <th>{t("payment.amount")}</th>
                <th>{t("payment.sst")}</th>
                <th>{t("payment.total")}</th>
              </tr>
            </thead>
            <tbody>
              {data.invoices.map((i) => (
                <tr key={i.number}>
                  <td>{i.number}</td>
                  <td>{date(i.issuedAt)}</td>
                  <td>
                    {date(i.periodStart)} – {date(i.periodEnd)}
                  </td>
                  <td>{i.billingName}</td>
                  <td>{money(i.amountMinor, i.currency)}</td>
                  <td>{money(i.taxMinor, i.currency)}</td>
                  <td>{money(i.totalMinor, i.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>{t("payment.noInvoices")}</p>
        )}
      </section>
    </section>
  );
}

export const ErrorBoundary = AdminOnlyBoundary;
