// /livechat/{token}/messages: the visitor's messages for browsers without JavaScript, shown in a
// frame of the chat page that refreshes itself (newest first, so no scrolling is needed).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { findVisit, visitorMessages } from "../livechat.server";
import { VisitorMessages } from "../components/VisitorChat";

const REFRESH_SECONDS = 3;

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const visit = await findVisit(params.token);
  if (!visit) throw new Response("Not Found", { status: 404 });
  return json({ token: visit.token, state: visit.state, messages: (await visitorMessages(visit)).reverse() });
}

export default function VisitorMessagesFrame() {
  const { t } = useTranslation();
  const data = useLoaderData<typeof loader>();
  return (
    <div className="frame-page">
      {data.state === "active" ? (
        <meta httpEquiv="refresh" content={String(REFRESH_SECONDS)} />
      ) : (
        <p role="status">
          <a href={`/livechat/${data.token}`} target="_top">
            {t("livechat.chatOver")}
          </a>
        </p>
      )}
      <VisitorMessages messages={data.messages} />
    </div>
  );
}
