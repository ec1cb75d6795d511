// /start/livechat/{key}: the widget's link (and the embed script's frame). Each opening starts a
// visit with its own token and goes to its page.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { startVisit } from "../livechat.server";
import { allowVisit, clientIpOf } from "../visitor.server";
import { keyHeaders, visitorKey } from "../visitor-key.server";
import { VisitorFrame, VisitorInvalid } from "../components/VisitorChat";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const clientIp = clientIpOf(context);
  if (!(await allowVisit(clientIp))) return json({ tooMany: true }, { status: 429 });
  const token = await startVisit(params.token);
  if (!token) return json({ tooMany: false }, { status: 404 });
  // the browser gets its own key here, before the form that registers it
  return redirect(`/livechat/${token}`, { headers: keyHeaders(await visitorKey(request)) });
}

export default function StartLiveChat() {
  const { t } = useTranslation();
  const data = useLoaderData<typeof loader>();
  if (!data.tooMany) return <VisitorInvalid />;
  return (
    <VisitorFrame>
      <h1>{t("livechat.title")}</h1>
      <p role="alert">{t("livechat.tooMany")}</p>
    </VisitorFrame>
  );
}
