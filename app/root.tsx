import type { LinksFunction, LoaderFunctionArgs } from "@remix-run/node";
import type { ClientLoaderFunctionArgs } from "@remix-run/react";
import { json } from "@remix-run/node";
import { isRouteErrorResponse, Links, Meta, Outlet, Scripts, ScrollRestoration, useRouteError, useRouteLoaderData } from "@remix-run/react";
import { useEffect, type ReactNode } from "react";
import { I18nextProvider, useTranslation } from "react-i18next";
import { i18nFor, loadTranslations, DEFAULT_LANGUAGE } from "./i18n";
import { hasChosenLanguage, translationUrls } from "./i18n.server";
import { requestContext } from "./context.server";
import { useNonce } from "./nonce";
import { NotFound } from "./components/NotFound";
import { LanguageDialog } from "./components/LanguageDialog";
import { RetriesExceeded } from "./components/RetriesExceeded";
import { isMaxRetries } from "./lazy-load";
import { pluginForPath } from "./plugins/registry.server";
import { serverVersion } from "./version.server";
import { pageRequestKey } from "./request-keys.server";
import { freshKeysOnSubmit } from "./request-key";
import styles from "./styles/app.css";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: styles },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  return json({
    language: ctx.language,
    // the texts themselves are a cached file per language (not in every document's data)
    translations: translationUrls(ctx.language),
    theme: ctx.theme,
    richLinks: ctx.richLinks,
    productTitle: ctx.edition.title,
    editionId: ctx.edition.id,
    // the build this page came from: a newer one announced over the socket offers to refresh
    version: serverVersion().id,
    // the key a form on this page sends without JavaScript (app/request-keys.server.ts)
    requestKey: pageRequestKey(),
    // shown on first visit until a language is chosen (spec: language modal, BETA); not on the
    // pages plugins show to the public (a live chat inside another website, a survey)
    languageDialog: !ctx.user?.language && !pluginForPath(new URL(request.url).pathname)?.isPublic && !(await hasChosenLanguage(request)),
  });
}
export type RootData = typeof loader;

/** After a language change (or a deploy with new texts) the browser fetches the new file before rendering. */
export async function clientLoader({ serverLoader }: ClientLoaderFunctionArgs) {
  const data = await serverLoader<typeof loader>();
  await loadTranslations(data.translations);
  return data;
}

export function useRootData() {
  return useRouteLoaderData<RootData>("root");
}

export function Layout({ children }: { children: ReactNode }) {
  const data = useRootData();
  const nonce = useNonce();
  const i18n = i18nFor(data?.language ?? DEFAULT_LANGUAGE);
  return (
    <html lang={data?.language ?? DEFAULT_LANGUAGE} data-theme={data?.theme ?? "auto"} data-edition={data?.editionId} data-version={data?.version}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content={data?.theme === "auto" ? "light dark" : (data?.theme ?? "light dark")} />
        <Meta />
        <Links />
        {data?.translations.map((f) => (
          <link key={f.href} rel="preload" href={f.href} as="fetch" crossOrigin="anonymous" />
        ))}
      </head>
      <body>
        <I18nextProvider i18n={i18n}>
          {children}
          {data?.languageDialog ? <LanguageDialog current={data.language} /> : null}
        </I18nextProvider>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  useEffect(freshKeysOnSubmit, []);
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  if (isMaxRetries(error))
    return (
      <main className="center-page">
        <RetriesExceeded sync={error.sync} />
      </main>
    );
  return <CrashPage error={error} />;
}

function CrashPage({ error }: { error: unknown }) {
  const { t } = useTranslation();
  const detail = isRouteErrorResponse(error) ? `${error.status} ${error.statusText || error.data}` : error instanceof Error ? error.message : String(error);
  return (
    <main className="center-page">
      <title>{t("crash.title")}</title>
      <h1>{t("crash.title")}</h1>
      <p>{t("crash.body")}</p>
      <a className="button primary" href="">
        {t("crash.refresh")}
      </a>
      <details>
        <summary>{t("crash.details")}</summary>
        <pre>{detail}</pre>
      </details>
    </main>
  );
}
