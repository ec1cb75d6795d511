// /product/{id}: one product with its image and price in the reader's language. Anyone with the
// menu links it to a ticket by the ticket's number and sees the linked tickets they may read (and
// unlinks them); admins edit, deactivate and reactivate. Plain posts: all work without JavaScript.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { conversationPath } from "~/conversation/channels";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { TableScroll } from "~/components/TableScroll";
import { formResult, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { KeyReused, once, requestKeyOfRequest } from "~/request-keys.server";
import { formatDate, formatTime } from "~/time";
import { pageMeta } from "~/meta";
import { formatPrice } from "../money";
import { getProduct, linkedTickets, linkTicket, productView, setActive, unlinkTicket } from "../products.server";

const NOTICES = ["saved", "linked", "unlinked", "deactivated", "activated"] as const;

const idOf = (raw: string | undefined) => {
  const id = Number(raw);
  if (!/^\d{1,15}$/.test(raw ?? "") || !Number.isSafeInteger(id) || id <= 0) throw new Response("Not Found", { status: 404 });
  return id;
};

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const user = ctx.user!;
  const row = await getProduct(idOf(params.id));
  if (!row) throw new Response("Not Found", { status: 404 });
  const tickets = await linkedTickets(user, row.id);
  const q = new URL(request.url).searchParams;
  return json(
    {
      product: productView(row),
      isAdmin: user.type === "admin",
      language: ctx.language,
      timeZone: ctx.workspace.timeZone,
      tickets,
      notice: NOTICES.find((n) => q.has(n)) ?? null,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const user = ctx.user!;
  const id = idOf(params.id);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  if (intent === "link") {
    const number = String(form.get("ticket") ?? "")
      .trim()
      .replace(/^#/, "");
    const values = { ticket: number };
    if (!/^\d{1,15}$/.test(number)) return refuse(formResult({ intent, errors: { ticket: "plugin_product.error.ticketNumber" }, values }));
    const key = requestKeyOfRequest(request, `user:${user.id}`, `product.link:${id}`, { ticket: number, request_key: form.get("request_key") });
    const done = await once(
      key,
      () => linkTicket(user, id, Number(number)),
      (stored) => ({ ok: true as const, ticketId: (stored as { ticketId: number }).ticketId }),
    ).catch((error) => {
      if (error instanceof KeyReused) return { ok: false as const, error: "plugin_product.error.sentBefore", status: 422 };
      throw error;
    });
    if (!done.ok) return refuse(formResult({ intent, errors: { ticket: done.error }, values, messageValues: { number } }), done.status);
    return redirect(`/product/${id}?linked=1`);
  }
  if (intent === "unlink") {
    const ticketId = Number(form.get("ticket_id"));
    if (!Number.isSafeInteger(ticketId) || !(await unlinkTicket(user, id, ticketId)))
      return refuse(formResult({ intent, message: "plugin_product.error.linkGone" }), 404);
    return redirect(`/product/${id}?unlinked=1`);
  }
  if (intent === "deactivate" || intent === "activate") {
    if (user.type !== "admin") throw new Response("Access denied", { status: 403 });
    const active = intent === "activate";
    if (!(await setActive(id, active, { actor: user, ip: String(context.clientIp ?? "") }))) throw new Response("Not Found", { status: 404 });
    return redirect(`/product/${id}?${active ? "activated" : "deactivated"}=1`);
  }
  throw new Response("Bad Request", { status: 400 });
}

export const meta = pageMeta("plugin_product.title");

function LinkForm({ productId }: { productId: number }) {
  const { t } = useTranslation();
  const failed = useFormResult("link");
  const location = useLocation();
  const error = failed?.errors.ticket;
  return (
    <Form
      method="post"
      action={`/product/${productId}`}
      className="inline-form"
      noValidate
      key={refusalKey(failed, location.key)}
      aria-labelledby="product-link-title"
    >
      <RequestKeyInput />
      <input type="hidden" name="intent" value="link" />
      <label htmlFor="product-ticket">{t("plugin_product.link.number")}</label>
      <input
        id="product-ticket"
        name="ticket"
        type="text"
        inputMode="numeric"
        autoComplete="off"
        required
        defaultValue={failed?.values.ticket ?? ""}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "product-ticket-error" : undefined}
      />
      <button type="submit" className="button primary">
        {t("plugin_product.link.submit")}
      </button>
      {error ? (
        <p id="product-ticket-error" className="field-error">
          {t(error, failed?.messageValues)}
        </p>
      ) : null}
    </Form>
  );
}

export default function ProductPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const { product: p } = data;
  const unlinkFailed = useFormResult("unlink");
  return (
    <section className="stack product-page">
      <p>
        <Link to="/product">{t("plugin_product.title")}</Link>
      </p>
      <h1 className="product-data">{p.name}</h1>
      {data.notice ? (
        <p className="notice" role="status">
          {t(`plugin_product.notice.${data.notice}`)}
        </p>
      ) : null}
      {p.active ? null : (
        <p className="muted" role="note">
          {t("plugin_product.inactiveNote")}
        </p>
      )}
      <div className="card stack">
        {p.image ? (
          <img
            src={p.image}
            alt={t("plugin_product.imageOf", { name: p.name })}
            className="product-image"
            style={{ maxWidth: 320, maxHeight: 320, objectFit: "contain" }}
          />
        ) : null}
        <dl className="product-details">
          <dt>{t("plugin_product.field.sku")}</dt>
          <dd>
            <code data-testid="product-sku">{p.sku}</code>
          </dd>
          <dt>{t("plugin_product.field.category")}</dt>
          <dd className="product-data">{p.category || "—"}</dd>
          <dt>{t("plugin_product.field.price")}</dt>
          <dd data-testid="product-price">{p.priceMinor == null ? t("plugin_product.noPrice") : formatPrice(p.priceMinor, p.currency, data.language)}</dd>
          {p.description ? (
            <>
              <dt>{t("plugin_product.field.description")}</dt>
              <dd className="product-data" style={{ whiteSpace: "pre-wrap" }}>
                {p.description}
              </dd>
            </>
          ) : null}
        </dl>
        {data.isAdmin ? (
          <div className="inline-form">
            <Link to={`/product/${p.id}/edit`} className="button">
              {t("plugin_product.edit")}
            </Link>
            <Form method="post" action={`/product/${p.id}`}>
              <input type="hidden" name="intent" value={p.active ? "deactivate" : "activate"} />
              <button type="submit" className="button">
                {p.active ? t("plugin_product.deactivate") : t("plugin_product.activate")}
              </button>
            </Form>
          </div>
        ) : null}
      </div>
      <section className="stack" aria-labelledby="product-link-title">
        <h2 id="product-link-title">{t("plugin_product.link.title")}</h2>
        {p.active ? <LinkForm productId={p.id} /> : null}
        <FormMessage result={unlinkFailed} />
        {data.tickets.length ? (
          <TableScroll label={t("plugin_product.link.title")}>
            <table className="payment-table product-tickets">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_product.link.ticket")}</th>
                  <th scope="col">{t("plugin_product.link.subject")}</th>
                  <th scope="col">{t("plugin_product.link.status")}</th>
                  <th scope="col">{t("plugin_product.link.by")}</th>
                  <th scope="col">
                    <span className="sr-only">{t("plugin_product.link.unlink")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.tickets.map((tk) => (
                  <tr key={tk.id} data-testid={`linked-${tk.number}`}>
                    <th scope="row">
                      <Link to={conversationPath(tk.kind, tk.number)}>#{tk.number}</Link>
                    </th>
                    <td className="product-data">{tk.title}</td>
                    <td>{t(`ticketStatus.${tk.status}`, { defaultValue: t("ticketStatus.unknown") })}</td>
                    <td>
                      {tk.linkedBy ? <span className="product-data">{`${tk.linkedBy}, `}</span> : null}
                      <time
                        dateTime={new Date(tk.linkedAt).toISOString()}
                      >{`${formatDate(tk.linkedAt, data.timeZone)} ${formatTime(tk.linkedAt, data.timeZone)}`}</time>
                    </td>
                    <td>
                      <Form method="post" action={`/product/${p.id}`}>
                        <input type="hidden" name="intent" value="unlink" />
                        <input type="hidden" name="ticket_id" value={tk.id} />
                        <button type="submit" className="button" aria-label={t("plugin_product.link.unlinkOne", { number: tk.number })}>
                          {t("plugin_product.link.unlink")}
                        </button>
                      </Form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p className="muted">{t("plugin_product.link.none")}</p>
        )}
      </section>
    </section>
  );
}
