// The end-to-end encryption's script in the shell (manifest `shellLayer`): mounted with the
// shell, it opens and seals the messages of whichever encrypted conversation the page shows
// (conversation.client.ts). Without JavaScript nothing here runs: the page then says that the
// messages need JavaScript to decrypt.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Outlet, useLoaderData, type ShouldRevalidateFunction } from "@remix-run/react";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";
import { pluginForPath } from "~/plugins/registry.server";
import { E2eeClient } from "./browser-client";
import { e2eeClient, setE2eeClient } from "./running";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  const isPublic = pluginForPath(new URL(request.url).pathname)?.isPublic;
  if (!ctx.user || isPublic || !ctx.edition.enabled.includes("e2ee")) return json({ userId: null });
  return json({ userId: ctx.user.id }, { headers: { "Cache-Control": "private, no-store" } });
}

/** Only after signing in or out. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formAction, defaultShouldRevalidate }) =>
  defaultShouldRevalidate && Boolean(formAction && (formAction === "/" || formAction.startsWith("/login") || formAction.startsWith("/logout")));

export default function E2eeLayer() {
  const { userId } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  useEffect(() => {
    if (!userId || !globalThis.crypto?.subtle || typeof indexedDB === "undefined") return;
    const c = new E2eeClient(userId, (key, values) => t(key, values));
    setE2eeClient(c);
    c.start();
    return () => {
      c.stop();
      if (e2eeClient() === c) setE2eeClient(null);
    };
  }, [userId, t]);
  return <Outlet />;
}
