// /notifications: the notification centre as a page (the panel without JavaScript): the three
// category tabs with their unread counts, ten more per Show more, mark a tab read, remove one,
// Mark all as read, and the user's preferences (browser push per category, quiet hours, new-ticket
// notifications and their filters), all plain forms. An admin is told when mobile push (FCM) is not configured.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { requireUser } from "~/context.server";
import { formError, formValues, safeRedirect, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import {
  CATEGORIES,
  isCategory,
  listNotifications,
  markCategoryRead,
  markNotificationsSeen,
  removeNotification,
  NOTIFICATION_PAGE_SIZE,
} from "~/conversation/notifications.server";
import { getPrefs, hhmm, newTicketChoices, prefsForm, savePrefs } from "~/conversation/push.server";
import { MarkReadForm, MarkSeenForm, NotificationItems, NotificationTabs, PushToggle, SoundToggle } from "~/conversation/components/Notifications";
import { CHANNELS } from "~/conversation/channels";
import { fcmConfigured } from "~/conversation/fcm.server";
import { retryingClientLoader } from "~/lazy-load";
import { pageMeta } from "~/meta";

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requireUser(request);
  const url = new URL(request.url);
  const asked = Number(url.searchParams.get("count"));
  const limit = Number.isInteger(asked) && asked > NOTIFICATION_PAGE_SIZE ? Math.min(asked, 500) : NOTIFICATION_PAGE_SIZE;
  const tab = url.searchParams.get("tab");
  const list = await listNotifications(user.id, limit, isCategory(tab) ? tab : undefined);
  const [prefs, choices] = await Promise.all([getPrefs(user.id), newTicketChoices()]);
  return json({
    choices,
    list,
    limit,
    now: Date.now(),
    saved: url.searchParams.has("saved"),
    // an admin learns that the mobile apps get nothing until FCM is set up
    mobilePushMissing: user.type === "admin" && !fcmConfigured(),
    prefs: {
      ...prefs,
      quietStart: hhmm(prefs.quietStart),
      quietEnd: hhmm(prefs.quietEnd),
      newTicketDepartment: prefs.newTicketDepartment ? String(prefs.newTicketDepartment) : "",
      newTicketCampaign: prefs.newTicketCampaign ? String(prefs.newTicketCampaign) : "",
    },
  });
}

// its "show more" pages retry a failed load (spec section 2)
export const clientLoader = retryingClientLoader;

const PREF_FIELDS = [
  "pushSla",
  "pushSystem",
  "pushTrade",
  "quietStart",
  "quietEnd",
  "newTickets",
  "newTicketChannel",
  "newTicketPriority",
  "newTicketDepartment",
  "newTicketCampaign",
] as const;

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request);
  const form = await request.formData();
  const back = safeRedirect(form.get("redirectTo"));
  const intent = String(form.get("intent") ?? "seen");
  if (intent === "read") {
    const category = String(form.get("category"));
    const lastId = Number(form.get("lastId"));
    if (isCategory(category)) await markCategoryRead(user.id, category, Number.isInteger(lastId) && lastId > 0 ? lastId : 0);
    return redirect(back);
  }
  if (intent === "remove") {
    const id = z.coerce.number().int().positive().safeParse(form.get("id"));
    if (id.success) await removeNotification(user.id, id.data);
    return redirect(back);
  }
  if (intent === "prefs") {
    const values = formValues(form, PREF_FIELDS);
    const parsed = prefsForm.safeParse(values);
    if (!parsed.success) return refuse(formError(parsed.error, values, "prefs"));
    await savePrefs(user.id, parsed.data);
    return redirect("/notifications?saved#prefs");
  }
  // "Mark all as read": every category read, the bell's count gone
  for (const c of CATEGORIES) await markCategoryRead(user.id, c);
  await markNotificationsSeen(user.id);
  return redirect(back);
}

export const meta = pageMeta("notifications.title");

export default function NotificationsPage() {
  const { t } = useTranslation();
  const { list, limit, now, prefs, saved, choices, mobilePushMissing } = useLoaderData<typeof loader>();
  const refused = useFormResult("prefs");
  const v = (name: (typeof PREF_FIELDS)[number], stored: string | boolean) =>
    refused ? (typeof stored === "boolean" ? !!refused.values[name] : (refused.values[name] ?? "")) : stored;
  const err = (name: string) => (refused?.errors[name] ? t(refused.errors[name]) : null);
  return (
    <div className="page notifications-page">
      <h1>{t("notifications.title")}</h1>
      <NotificationTabs current={list.category} unread={list.unread} href={(c) => `/notifications?tab=${c}`} />
      <div className="row">
        {list.unread[list.category] && list.items[0] ? <MarkReadForm category={list.category} lastId={list.items[0].id} /> : null}
        {list.unseen ? <MarkSeenForm /> : null}
      </div>
      <NotificationItems items={list.items} now={now} />
      {list.more ? (
        <Link className="button" to={`/notifications?tab=${list.category}&count=${limit + NOTIFICATION_PAGE_SIZE}`}>
          {t("notifications.showMore")}
        </Link>
      ) : null}

      <section id="prefs" aria-labelledby="prefs-title">
        <h2 id="prefs-title">{t("notifications.prefs.title")}</h2>
        {saved ? <p role="status">{t("notifications.prefs.saved")}</p> : null}
        <SoundToggle />
        <PushToggle />
        {mobilePushMissing ? (
          <p className="notice" role="status">
            {t("notifications.push.mobileMissing")}
          </p>
        ) : null}
        <Form method="post" key={refused ? "refused" : "stored"}>
          <input type="hidden" name="intent" value="prefs" />
          <fieldset>
            <legend>{t("notifications.prefs.push")}</legend>
            {(
              [
                ["pushSla", "sla"],
                ["pushSystem", "system"],
                ["pushTrade", "trade"],
              ] as const
            ).map(([name, category]) => (
              <label key={name}>
                <input type="checkbox" name={name} defaultChecked={v(name, prefs[name]) as boolean} /> {t(`notifications.tab.${category}`)}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>{t("notifications.prefs.quiet")}</legend>
            <label>
              {t("notifications.prefs.quietStart")}{" "}
              <input type="time" name="quietStart" defaultValue={v("quietStart", prefs.quietStart) as string} aria-invalid={!!err("quietStart")} />
            </label>{" "}
            <label>
              {t("notifications.prefs.quietEnd")}{" "}
              <input
                type="time"
                name="quietEnd"
                defaultValue={v("quietEnd", prefs.quietEnd) as string}
                aria-invalid={!!err("quietEnd")}
                aria-describedby={err("quietEnd") ? "quietEnd-error" : undefined}
              />
            </label>
            {err("quietStart") ? <p className="error">{err("quietStart")}</p> : null}
            {err("quietEnd") ? (
              <p className="error" id="quietEnd-error">
                {err("quietEnd")}
              </p>
            ) : null}
          </fieldset>
          <fieldset>
            <legend>{t("notifications.prefs.newTickets")}</legend>
            <label>
              <input type="checkbox" name="newTickets" defaultChecked={v("newTickets", prefs.newTickets) as boolean} /> {t("notifications.prefs.newTickets")}
            </label>
            <label>
              {t("notifications.prefs.channel")}{" "}
              <select name="newTicketChannel" defaultValue={v("newTicketChannel", prefs.newTicketChannel) as string}>
                <option value="">{t("notifications.prefs.any")}</option>
                {CHANNELS.map((c) => (
                  <option key={c} value={c}>
                    {t(`channel.${c}`)}
                  </option>
                ))}
              </select>
            </label>{" "}
            <label>
              {t("notifications.prefs.priority")}{" "}
              <select name="newTicketPriority" defaultValue={v("newTicketPriority", prefs.newTicketPriority) as string}>
                <option value="">{t("notifications.prefs.any")}</option>
                {(["H", "M", "L"] as const).map((p) => (
                  <option key={p} value={p}>
                    {t(`priority.${p}`)}
                  </option>
                ))}
                <option value="none">{t("notifications.prefs.noPriority")}</option>
              </select>
            </label>{" "}
            <label>
              {t("notifications.prefs.department")}{" "}
              <select name="newTicketDepartment" defaultValue={v("newTicketDepartment", prefs.newTicketDepartment) as string}>
                <option value="">{t("notifications.prefs.any")}</option>
                {choices.departments.map((d) => (
                  <option key={d.id} value={String(d.id)}>
                    {d.name}
                  </option>
                ))}
              </select>
            </label>
            {choices.campaigns.length ? (
              <>
                {" "}
                <label>
                  {t("notifications.prefs.campaign")}{" "}
                  <select name="newTicketCampaign" defaultValue={v("newTicketCampaign", prefs.newTicketCampaign) as string}>
                    <option value="">{t("notifications.prefs.any")}</option>
                    {choices.campaigns.map((c) => (
                      <option key={c.id} value={String(c.id)}>
                        {c.name}
                      </option>
                    ))}
                  </select>
                </label>
              </>
            ) : null}
          </fieldset>
          <button type="submit" className="button primary">
            {t("notifications.prefs.save")}
          </button>
        </Form>
      </section>
    </div>
  );
}
