import { isRouteErrorResponse, useRouteError } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { NotFound } from "./NotFound";
import { RetriesExceeded } from "./RetriesExceeded";
import { isMaxRetries } from "~/lazy-load";

/**
 * Error boundary for pages that answer 403 (and 404): a plain 'Access denied' inside the shell,
 * with the page's own explanation (a translation key); a lazy load that failed on every try says
 * so; anything else goes up.
 */
export function deniedBoundary(explanationKey: string) {
  return function DeniedBoundary() {
    const error = useRouteError();
    const { t } = useTranslation();
    if (isRouteErrorResponse(error) && error.status === 403)
      return (
        <section className="access-denied" role="alert">
          <h1>{t("admin.deniedTitle")}</h1>
          <p>{t(explanationKey)}</p>
        </section>
      );
    if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
    if (isMaxRetries(error)) return <RetriesExceeded sync={error.sync} />;
    throw error;
  };
}

/** Admin pages: agents are told only admins can open them. */
export const AdminOnlyBoundary = deniedBoundary("admin.denied");
