// /notifications: every notification, ten more per Show more; Mark all as read.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requireUser } from "~/context.server";
import { safeRedirect } from "~/forms";
import { listNotifications, markNotificationsSeen, NOTIFICATION_PAGE_SIZE } from "~/conversation/notifications.server";
import { MarkSeenForm, NotificationItems } from "~/conversation/components/Notifications";
import { retryingClientLoader } from "~/lazy-load";
import { pageMeta } from "~/meta";

export async function loader({ request }: LoaderFunctionArgs) {
  const { user } = await requireUser(request);
  const asked = Number(new URL(request.url).searchParams.get("count"));
  const limit = Number.isInteger(asked) && asked > NOTIFICATION_PAGE_SIZE ? Math.min(asked, 500) : NOTIFICATION_PAGE_SIZE;
  return json({ list: await listNotifications(user.id, limit), limit, now: Date.now() });
}

// its "show more" pages retry a failed load (spec section 2)
export const clientLoader = retryingClientLoader;

export async function action({ request }: ActionFunctionArgs) {
  const { user } = await requireUser(request);
  const form = await request.formData();
  await markNotificationsSeen(user.id);
  return redirect(safeRedirect(form.get("redirectTo")));
}

export const meta = pageMeta("notifications.title");

export default function NotificationsPage() {
  const { t } = useTranslation();
  const { list, limit, now } = useLoaderData<typeof loader>();
  return (
    <div className="page">
      <h1>{t("notifications.title")}</h1>
      {list.unseen ? <MarkSeenForm /> : null}
      <NotificationItems items={list.items} now={now} />
      {list.more ? (
        <Link className="button" to={`/notifications?count=${limit + NOTIFICATION_PAGE_SIZE}`}>
          {t("notifications.showMore")}
        </Link>
      ) : null}
    </div>
  );
}
