import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { useTranslation } from "react-i18next";

/** Error boundary of admin pages: agents see a plain 'Access denied' inside the shell. */
export function AdminOnlyBoundary() {
  const error = useRouteError();
  const { t } = useTranslation();
  if (isRouteErrorResponse(error) && error.status === 403)
    return (
      <section className="access-denied" role="alert">
        <h1>{t("admin.deniedTitle")}</h1>
        <p>{t("admin.denied")}</p>
      </section>
    );
  throw error;
}
