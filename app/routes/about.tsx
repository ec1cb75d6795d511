import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";
import { VERSION } from "~/version";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  return json({ productTitle: ctx.edition.title, version: VERSION });
}

export default function About() {
  const { productTitle, version } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="center-page about">
      <title>{`${t("about.title")} - ${productTitle}`}</title>
      <h1>{productTitle}</h1>
      <p>
        {t("about.version")}: <strong data-testid="version">{`${version.build} ${version.tag}`}</strong>
      </p>
      <p className="muted">{t("about.madeBy")}</p>
      <Link to="/">{t("notFound.home")}</Link>
    </main>
  );
}
