// /contact, /signup, /password_reset: public pages for visitors; signed-in users go home.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  if (ctx.user) throw redirect("/");
  const page = new URL(request.url).pathname.slice(1) as "contact" | "signup" | "password_reset";
  return json({ page, productTitle: ctx.edition.title });
}

export default function Landing() {
  const { page, productTitle } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="center-page">
      <title>{`${t(`landing.${page}.title`)} - ${productTitle}`}</title>
      <h1>{t(`landing.${page}.title`)}</h1>
      <p>{t(`landing.${page}.body`)}</p>
      <Link className="button primary" to="/">
        {t("landing.backToLogin")}
      </Link>
    </main>
  );
}
