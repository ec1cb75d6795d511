// /contact: how to reach sales, for visitors; signed-in users go home. (/signup and
// /password_reset have their own pages in app/accounts/routes/.)
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  if (ctx.user) throw redirect("/");
  return json({ productTitle: ctx.edition.title });
}

export default function Contact() {
  const { productTitle } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="center-page">
      <title>{`${t("landing.contact.title")} - ${productTitle}`}</title>
      <h1>{t("landing.contact.title")}</h1>
      <p>{t("landing.contact.body")}</p>
      <Link className="button primary" to="/">
        {t("landing.backToLogin")}
      </Link>
    </main>
  );
}
