// /settings/sessions: the user's own signed-in sessions, each with a sign-out, and "sign out all
// other sessions". A session signed out here loses its sockets at once, so its open tabs sign out.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { requestContext, requireUser } from "~/context.server";
import { listUserSessions, revokeOtherSessions, revokeSession } from "~/accounts/sessions.server";
import { describeDevice } from "~/accounts/device";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { withCount } from "~/accounts/texts";
import { FormMessage } from "~/components/FormMessage";
import { formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { TableScroll } from "~/components/TableScroll";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { session } = await requireUser(request);
  const ctx = await requestContext(request, context);
  const user = ctx.user!;
  // dates in the workspace's time zone, written the way the user's language writes them
  const format = new Intl.DateTimeFormat(ctx.language, { dateStyle: "medium", timeStyle: "short", timeZone: ctx.workspace.timeZone });
  const sessions = (await listUserSessions(user.id, session.idHash)).map((s) => ({
    id: s.id,
    device: describeDevice(s.userAgent),
    ip: s.ip,
    created: format.format(s.createdAt),
    lastSeen: format.format(s.lastSeenAt),
    current: s.current,
  }));
  const params = new URL(request.url).searchParams;
  return json({ sessions, admin: user.type === "admin", ended: params.has("ended") ? Number(params.get("ended")) || 0 : null });
}

const revokeSchema = z.object({ id: z.string().regex(/^[\w-]{10,40}$/) });

export async function action({ request, context }: ActionFunctionArgs) {
  const { user, session } = await requireUser(request);
  const form = await request.formData();
  const actor = { id: user.id, name: user.name };
  if (form.get("intent") === "revoke_others") {
    const count = await revokeOtherSessions(actor, session.idHash, context.clientIp);
    return redirect(`/settings/sessions?ended=${count}`);
  }
  const parsed = revokeSchema.safeParse(formValues(form, ["id"]));
  // the user's own sessions only: an id of someone else's session finds nothing
  if (!parsed.success || !(await revokeSession(actor, parsed.data.id, context.clientIp)))
    return refuse(formResult({ intent: "revoke", message: "security.sessions.gone" }), 409);
  return redirect("/settings/sessions?ended=1");
}

export const meta = pageMeta("security.sessions.title");

export default function SettingsSessions() {
  const data = useLoaderData<typeof loader>();
  const refused = useFormResult("revoke");
  const { t } = useTranslation();
  const others = data.sessions.filter((s) => !s.current).length;
  return (
    <section className="settings stack">
      <SettingsNav admin={data.admin} />
      <h1>{t("security.sessions.title")}</h1>
      <p className="muted">{t("security.sessions.intro")}</p>
      {data.ended !== null ? (
        <p className="notice" role="status">
          {t("security.sessions.ended", withCount({ count: String(data.ended) }))}
        </p>
      ) : null}
      <FormMessage result={refused} />
      <TableScroll label={t("security.sessions.title")}>
        <table className="sessions-table">
          <caption className="sr-only">{t("security.sessions.title")}</caption>
          <thead>
            <tr>
              <th scope="col">{t("security.sessions.device")}</th>
              <th scope="col">{t("security.sessions.address")}</th>
              <th scope="col">{t("security.sessions.created")}</th>
              <th scope="col">{t("security.sessions.lastSeen")}</th>
              <th scope="col">
                <span className="sr-only">{t("security.sessions.actions")}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.sessions.map((s) => {
              const device =
                s.device.browser && s.device.system
                  ? t("security.sessions.deviceOn", { browser: s.device.browser, system: s.device.system })
                  : s.device.browser || s.device.system || s.device.raw || t("security.sessions.unknownDevice");
              return (
                <tr key={s.id} data-session={s.current ? "current" : "other"}>
                  <th scope="row" title={s.device.raw}>
                    {device}
                    {s.current ? <strong className="badge"> {t("security.sessions.thisSession")}</strong> : null}
                  </th>
                  <td>{s.ip || "—"}</td>
                  <td>{s.created}</td>
                  <td>{s.lastSeen}</td>
                  <td>
                    {s.current ? (
                      <Form method="post" action="/logout">
                        <button type="submit" className="button">
                          {t("security.sessions.signOut")}
                          <span className="sr-only"> {t("security.sessions.thisSession")}</span>
                        </button>
                      </Form>
                    ) : (
                      <Form method="post">
                        <input type="hidden" name="intent" value="revoke" />
                        <input type="hidden" name="id" value={s.id} />
                        <button type="submit" className="button">
                          {t("security.sessions.signOut")}
                          <span className="sr-only">
                            {" "}
                            {device}, {s.lastSeen}
                          </span>
                        </button>
                      </Form>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableScroll>
      {others > 0 ? (
        <Form method="post">
          <input type="hidden" name="intent" value="revoke_others" />
          <button type="submit" className="button primary">
            {t("security.sessions.signOutOthers")}
          </button>
        </Form>
      ) : (
        <p className="muted">{t("security.sessions.noOthers")}</p>
      )}
    </section>
  );
}
