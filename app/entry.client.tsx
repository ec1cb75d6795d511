import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { loadTranslations, type TranslationFile } from "./i18n";

// The server rendered the texts; the browser needs the same ones (a cached file per language,
// preloaded by the document's head) before hydrating, or the first render would differ.
const root = (window as unknown as { __remixContext?: { state?: { loaderData?: { root?: { translations?: TranslationFile[] } } } } }).__remixContext;
loadTranslations(root?.state?.loaderData?.root?.translations ?? [])
  .catch((error) => console.error("translations:", error))
  .finally(() =>
    startTransition(() => {
      hydrateRoot(
        document,
        <StrictMode>
          <RemixBrowser />
        </StrictMode>,
      );
    }),
  );
