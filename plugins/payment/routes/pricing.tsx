// /pricing (public, visitors only): plan cards with the price per user per month in the visitor's
// currency (country from their IP, offline GeoIP) and the Sales and Service Tax as a percentage.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";
import { PlanCards } from "../components/PlanCards";
import { visitorCountry } from "../http.server";
import { pricingFor } from "../money";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  const country = visitorCountry(context);
  return json({ productTitle: ctx.edition.title, country, entry: pricingFor(country) });
}

export default function Pricing() {
  const { productTitle, country, entry } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="pricing-page stack">
      <title>{`${t("payment.pricingTitle")} - ${productTitle}`}</title>
      <h1>{t("payment.pricingTitle")}</h1>
      <p data-testid="pricing-country">{t("payment.pricesFor", { country, currency: entry.currency })}</p>
      <PlanCards
        entry={entry}
        action={() => (
          <Link className="button primary" to="/signup">
            {t("payment.startTrial")}
          </Link>
        )}
        enterpriseAction={
          <Link className="button" to="/contact">
            {t("payment.contactSales")}
          </Link>
        }
      />
      <p>
        <Link to="/">{t("landing.backToLogin")}</Link>
      </p>
    </main>
  );
}
