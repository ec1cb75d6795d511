// /product/new and /product/{id}/edit (admins): a product's name, SKU, category, price, description
// and image. A plain multipart <form>: works without JavaScript; a refusal (SKU taken, a price that
// is not a number, an image that is not one or too large) shows every field's error and keeps what
// was typed, the chosen image too (kept on the server: it need not be chosen again); the edit form
// carries the product's version, so a save over another admin's later change is refused (409);
// its request key makes a double submit add one product.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute, requireAdmin } from "~/context.server";
import { AdminOnlyBoundary } from "~/components/AdminOnly";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { formResult, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { KeyReused, once, requestKeyOfRequest } from "~/request-keys.server";
import { pageMeta } from "~/meta";
import { CURRENCIES, DEFAULT_CURRENCY, priceInput } from "../money";
import { readProductForm } from "../form.server";
import { FIELDS, getProduct, IMAGE_MAX_BYTES, LIMITS, productView, saveProduct } from "../products.server";

const idOf = (raw: string | undefined) => {
  if (raw === undefined) return undefined;
  const id = Number(raw);
  if (!/^\d{1,15}$/.test(raw) || !Number.isSafeInteger(id) || id <= 0) throw new Response("Not Found", { status: 404 });
  return id;
};

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  await requireAdmin(request);
  const id = idOf(params.id);
  const row = id ? await getProduct(id) : null;
  if (id && !row) throw new Response("Not Found", { status: 404 });
  return json(
    { product: row ? { ...productView(row), price: priceInput(row.priceMinor, row.currency), version: Number(row.updatedAt) } : null },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const { user } = await requireAdmin(request);
  const id = idOf(params.id);
  const read = await readProductForm(request);
  const values = Object.fromEntries(FIELDS.map((f) => [f, read.fields[f] ?? ""])) as Record<(typeof FIELDS)[number], string>;
  const by = { actor: user, ip: String(context.clientIp ?? "") };
  const version = Number(read.fields.version);
  const input = {
    values,
    image: { bytes: read.image, tooLarge: read.tooLarge },
    removeImage: read.fields.remove_image === "1",
    pendingImage: read.fields.pending_image,
    version: id && read.fields.version && Number.isSafeInteger(version) ? version : undefined,
  };
  const key = id ? null : requestKeyOfRequest(request, `user:${user.id}`, "product.create", { ...read.fields, image: read.image?.length ?? 0 });
  const saved = await once(
    key,
    () => saveProduct(input, by, id),
    (stored) => ({ ok: true as const, id: (stored as { id: number }).id }),
  ).catch((error) => {
    if (error instanceof KeyReused)
      return { ok: false as const, result: formResult({ intent: "save", message: "plugin_product.error.sentBefore", values }), status: 422 };
    throw error;
  });
  if (!saved.ok) return refuse(saved.result, read.tooLarge ? 413 : saved.status);
  return redirect(`/product/${saved.id}?saved=1`);
}

export const meta = pageMeta<{ product: { name: string } | null }>((data) =>
  data?.product ? "plugin_product.form.editTitle" : "plugin_product.form.newTitle",
);

export default function ProductFormPage() {
  const { product } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult("save");
  const navigation = useNavigation();
  const location = useLocation();
  const busy = navigation.state === "submitting";
  const errors = failed?.errors ?? {};
  const value = (name: string, fallback = "") => failed?.values[name] ?? fallback;
  const max = { max: String(IMAGE_MAX_BYTES / 1024 / 1024) };
  /** A labelled control with its help and error tied to it (aria-describedby). */
  const row = (name: string, label: string, control: (a: Record<string, unknown>) => JSX.Element, help?: string) => {
    const id = `product-${name}`;
    const describedBy = [help ? `${id}-help` : "", errors[name] ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
    return (
      <div className="stack">
        <label htmlFor={id}>{label}</label>
        {control({ id, name, "aria-invalid": errors[name] ? true : undefined, "aria-describedby": describedBy })}
        {help ? (
          <p id={`${id}-help`} className="muted">
            {help}
          </p>
        ) : null}
        {errors[name] ? (
          <p id={`${id}-error`} className="field-error">
            {t(errors[name], { ...max, ...failed?.messageValues })}
          </p>
        ) : null}
      </div>
    );
  };
  const title = product ? t("plugin_product.form.editTitle") : t("plugin_product.form.newTitle");
  return (
    <section className="stack product-page">
      <p>
        <Link to={product ? `/product/${product.id}` : "/product"} className={product ? "product-data" : undefined}>
          {product ? product.name : t("plugin_product.title")}
        </Link>
      </p>
      <h1>{title}</h1>
      <Form
        method="post"
        encType="multipart/form-data"
        noValidate
        className="stack narrow card"
        aria-label={title}
        key={refusalKey(failed, location.key)}
        data-testid="product-form"
      >
        {product ? null : <RequestKeyInput />}
        {product ? <input type="hidden" name="version" value={value("version") || String(product.version)} /> : null}
        {value("pending_image") ? <input type="hidden" name="pending_image" value={value("pending_image")} /> : null}
        <FormMessage result={failed} />
        {Object.keys(errors).length ? (
          <p className="form-error" role="alert">
            {t("plugin_product.form.fix")}
          </p>
        ) : null}
        {row("name", t("plugin_product.field.name"), (a) => (
          <input {...a} type="text" required maxLength={LIMITS.name} defaultValue={value("name", product?.name)} />
        ))}
        {row(
          "sku",
          t("plugin_product.field.sku"),
          (a) => (
            <input {...a} type="text" required maxLength={LIMITS.sku} autoComplete="off" defaultValue={value("sku", product?.sku)} />
          ),
          t("plugin_product.form.skuHelp"),
        )}
        {row("category", t("plugin_product.field.category"), (a) => (
          <input {...a} type="text" maxLength={LIMITS.category} defaultValue={value("category", product?.category)} />
        ))}
        {row(
          "price",
          t("plugin_product.field.price"),
          (a) => (
            <input {...a} type="text" inputMode="decimal" autoComplete="off" defaultValue={value("price", product?.price)} />
          ),
          t("plugin_product.form.priceHelp"),
        )}
        {row("currency", t("plugin_product.field.currency"), (a) => (
          <select {...a} defaultValue={value("currency", product?.currency ?? DEFAULT_CURRENCY)}>
            {CURRENCIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        ))}
        {row("description", t("plugin_product.field.description"), (a) => (
          <textarea {...a} rows={5} maxLength={LIMITS.description} defaultValue={value("description", product?.description)} />
        ))}
        {product?.image ? (
          <div className="stack">
            <img
              src={product.image}
              alt={t("plugin_product.imageOf", { name: product.name })}
              className="product-image"
              style={{ maxWidth: 200, maxHeight: 200 }}
            />
            <label className="inline">
              <input type="checkbox" name="remove_image" value="1" /> {t("plugin_product.form.removeImage")}
            </label>
          </div>
        ) : null}
        {value("pending_image") ? (
          <p className="notice" role="status" id="product-pending-image">
            {t("plugin_product.form.imageKept")}
          </p>
        ) : null}
        {row(
          "image",
          product?.image ? t("plugin_product.form.replaceImage") : t("plugin_product.field.image"),
          (a) => (
            <input {...a} type="file" accept="image/png,image/jpeg,image/gif,image/webp" />
          ),
          t("plugin_product.form.imageHelp", max),
        )}
        <div>
          <button type="submit" className="button primary" disabled={busy}>
            {product ? t("plugin_product.form.save") : t("plugin_product.form.add")}
          </button>
        </div>
      </Form>
    </section>
  );
}

export { AdminOnlyBoundary as ErrorBoundary };
