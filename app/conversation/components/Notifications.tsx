// Notifications: a panel in the shell header (the latest ten) and the /notifications page.
// Plain links and forms; the page's data follows newNotification when JavaScript is on.
import { Form, Link, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { NotificationList } from "~/conversation/notifications.server";
import { conversationPath } from "~/conversation/channels";
import { relativeTime } from "~/time";
import { Icon } from "~/components/Icon";
import { closeMenuOnEscape } from "~/components/dialog-focus";

type Item = NotificationList["items"][number];

export function NotificationItems({ items, now }: { items: Item[]; now: number }) {
  const { t } = useTranslation();
  const relative = (at: number) => {
    const rel = relativeTime(at, now);
    return t(`relative.${rel.key}`, { count: rel.count });
  };
  if (!items.length) return <p className="muted">{t("notifications.none")}</p>;
  return (
    <ul className="notification-list">
      {items.map((n) => (
        <li key={n.id} className={n.seen ? undefined : "unseen"}>
          {n.ticketNumber ? (
            <Link to={conversationPath(n.channel, n.ticketNumber)}>
              {t(`notifications.type.${n.type}`, { by: n.body, number: n.ticketNumber, title: n.title })}
            </Link>
          ) : (
            <span>{n.title}</span>
          )}{" "}
          <span className="muted">{relative(n.createdAt)}</span>
        </li>
      ))}
    </ul>
  );
}

export function MarkSeenForm() {
  const { t } = useTranslation();
  const location = useLocation();
  return (
    <Form method="post" action="/notifications" className="inline">
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <button type="submit" className="link-button">
        {t("notifications.markSeen")}
      </button>
    </Form>
  );
}

export function NotificationBell({ data, now }: { data: NotificationList; now: number }) {
  const { t } = useTranslation();
  return (
    <details className="notification-bell" onKeyDown={closeMenuOnEscape}>
      <summary aria-label={t("notifications.open", { count: data.unseen })} className="bar-button">
        <Icon name="bell" />
        <span className="bar-text">{t("notifications.title")}</span>
        {data.unseen ? <span className="badge unread">{data.unseen}</span> : null}
      </summary>
      <div className="notification-panel">
        <NotificationItems items={data.items} now={now} />
        <p className="row">
          {data.unseen ? <MarkSeenForm /> : null}
          {data.more ? <Link to="/notifications">{t("notifications.showMore")}</Link> : null}
        </p>
      </div>
    </details>
  );
}
