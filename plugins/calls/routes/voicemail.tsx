// /voicemail (admins, or agents with view_voicemail; spec section 6): the messages callers left when
// nobody answered, newest first, paged by 30: caller, number called, date in the workspace's time
// zone, duration and a player (an <audio controls> element with a plain link: it plays without
// JavaScript). Each row links to its CALL ticket.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { guardPluginRoute } from "~/context.server";
import { deniedBoundary } from "~/components/AdminOnly";
import { permissionsOf } from "~/accounts/users.server";
import { TableScroll } from "~/components/TableScroll";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { CALL_PAGE_SIZE } from "../calls.server";
import { listVoicemails } from "../recording.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const user = ctx.user!;
  if (user.type !== "admin" && !permissionsOf(user).includes("view_voicemail")) throw new Response("Access denied", { status: 403 });
  const page = z.coerce
    .number()
    .int()
    .min(1)
    .max(100000)
    .catch(1)
    .parse(new URL(request.url).searchParams.get("page") ?? 1);
  const list = await listVoicemails(user, page, CALL_PAGE_SIZE);
  return json({ ...list, timeZone: ctx.workspace.timeZone }, { headers: { "Cache-Control": "private, no-store" } });
}

export const meta = pageMeta("plugin_calls.menu.voicemail");

export default function Voicemail() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="stack voicemail-page">
      <h1>{t("plugin_calls.menu.voicemail")}</h1>
      <h2 id="voicemail-list">{t("plugin_calls.voicemail.count", { count: data.total })}</h2>
      {data.voicemails.length ? (
        <TableScroll label={t("plugin_calls.menu.voicemail")}>
          <table className="payment-table">
            <thead>
              <tr>
                <th scope="col">{t("plugin_calls.list.ticket")}</th>
                <th scope="col">{t("plugin_calls.list.caller")}</th>
                <th scope="col">{t("plugin_calls.list.called")}</th>
                <th scope="col">{t("plugin_calls.list.when")}</th>
                <th scope="col">{t("plugin_calls.voicemail.duration")}</th>
                <th scope="col">{t("plugin_calls.voicemail.message")}</th>
              </tr>
            </thead>
            <tbody>
              {data.voicemails.map((v) => {
                const src = `/api/proxy/recordings?id=${v.ticketNumber}&type=voicemail`;
                return (
                  <tr key={v.ticketNumber} data-testid={`voicemail-${v.ticketNumber}`}>
                    <td>
                      <Link to={`/call/${v.ticketNumber}`}>#{v.ticketNumber}</Link>
                    </td>
                    <td>{v.from}</td>
                    <td>{v.did || v.to}</td>
                    <td>
                      {formatDate(v.at, data.timeZone)} {formatTime(v.at, data.timeZone)}
                    </td>
                    <td>{t("plugin_calls.list.seconds", { n: v.seconds })}</td>
                    <td>
                      <audio controls preload="none" src={src} aria-label={t("plugin_calls.voicemail.play", { from: v.from })}>
                        <source src={src} type={v.type} />
                      </audio>{" "}
                      <a href={src}>{t("plugin_calls.panel.download")}</a>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">{t("plugin_calls.voicemail.none")}</p>
      )}
      {data.pages > 1 ? (
        <nav aria-label={t("list.pager")} className="inline-form">
          {data.page > 1 ? <Link to={`/voicemail?page=${data.page - 1}`}>{t("list.prev")}</Link> : null}
          <span>{t("plugin_calls.list.page", { page: data.page, pages: data.pages })}</span>
          {data.page < data.pages ? <Link to={`/voicemail?page=${data.page + 1}`}>{t("list.next")}</Link> : null}
        </nav>
      ) : null}
    </section>
  );
}

// a user without the right gets the shell with the reason, not the crash page
export const ErrorBoundary = deniedBoundary("plugin_calls.voicemail.denied");
