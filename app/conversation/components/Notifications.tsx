// Notifications: a panel in the shell header (400x600) and the /notifications page, with the three
// categories (sla, system, trade) as tabs and each tab's unread count. Plain links and forms (the
// tabs are links, read and remove are forms posting to /notifications); with JavaScript the panel
// switches tabs in place, opening it reads its tab, closing it marks everything seen, a new
// notification in the open tab comes on top (the data reloads) and lights another tab's dot, and
// a sound plays (volume 0.5, switched off locally: notificationSound).
import { Form, Link, useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { NotificationList } from "~/conversation/notifications.server";
import { conversationPath } from "~/conversation/channels";
import { relativeTime } from "~/time";
import { Icon } from "~/components/Icon";
import { closeMenuOnEscape } from "~/components/dialog-focus";
import { NEW_NOTIFICATION_EVENT } from "~/realtime-store";

type Item = NotificationList["items"][number];
type Category = NotificationList["category"];
const TABS: Category[] = ["sla", "system", "trade"];
/** spec section 9: the notification sound plays at half volume; spec section 2: its toggle is stored locally. */
export const SOUND_VOLUME = 0.5;
export const SOUND_KEY = "notificationSound";

export function notificationText(t: (key: string, values?: Record<string, unknown>) => string, n: Item) {
  return t(`notifications.type.${n.type}`, { by: n.body, number: n.ticketNumber ?? "", title: n.title });
}

/** Where a notification leads (spec section 2: /ticket/{n}, /livechat/{n}, a trade alert to analyst_intelligence/{type}/{id}). */
const target = (n: Item) =>
  !n.ticketNumber ? null : n.type === "trade_alert" ? `/analyst_intelligence/${n.channel}/${n.ticketNumber}` : conversationPath(n.channel, n.ticketNumber);

export function NotificationItems({ items, now, redirectTo }: { items: Item[]; now: number; redirectTo?: string }) {
  const { t } = useTranslation();
  const location = useLocation();
  const relative = (at: number) => {
    const rel = relativeTime(at, now);
    return t(`relative.${rel.key}`, { count: rel.count });
  };
  if (!items.length) return <p className="muted notification-empty">{t("notifications.none")}</p>;
  return (
    <ul className="notification-list">
      {items.map((n) => {
        const text = notificationText(t, n);
        const to = target(n);
        return (
          <li key={n.id} className={n.read ? undefined : "unseen"} data-notification={n.id}>
            {to ? <Link to={to}>{text}</Link> : <span>{text}</span>} <span className="muted">{relative(n.createdAt)}</span>{" "}
            <Form method="post" action="/notifications" className="inline">
              <input type="hidden" name="intent" value="remove" />
              <input type="hidden" name="id" value={n.id} />
              <input type="hidden" name="redirectTo" value={redirectTo ?? location.pathname + location.search} />
              <button type="submit" className="link-button" aria-label={t("notifications.removeOne", { text })}>
                {t("notifications.remove")}
              </button>
            </Form>
          </li>
        );
      })}
    </ul>
  );
}

export function MarkSeenForm() {
  const { t } = useTranslation();
  const location = useLocation();
  return (
    <Form method="post" action="/notifications" className="inline">
      <input type="hidden" name="intent" value="seen" />
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <button type="submit" className="link-button">
        {t("notifications.markSeen")}
      </button>
    </Form>
  );
}

export function MarkReadForm({ category, lastId }: { category: Category; lastId: number }) {
  const { t } = useTranslation();
  const location = useLocation();
  return (
    <Form method="post" action="/notifications" className="inline">
      <input type="hidden" name="intent" value="read" />
      <input type="hidden" name="category" value={category} />
      <input type="hidden" name="lastId" value={lastId} />
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      <button type="submit" className="link-button">
        {t("notifications.markRead")}
      </button>
    </Form>
  );
}

/** The three tabs: links (to `href(category)`), each with its unread count and a dot when it has news. */
export function NotificationTabs({
  current,
  unread,
  href,
  onPick,
  lit = {},
}: {
  current: Category;
  unread: Record<Category, number>;
  href: (c: Category) => string;
  onPick?: (c: Category) => void;
  lit?: Partial<Record<Category, boolean>>;
}) {
  const { t } = useTranslation();
  return (
    <nav className="notification-tabs" aria-label={t("notifications.tabs")}>
      {TABS.map((c) => (
        <Link
          key={c}
          to={href(c)}
          className={`tab${c === current ? " active" : ""}`}
          data-category={c}
          aria-current={c === current ? "page" : undefined}
          onClick={
            onPick
              ? (e) => {
                  e.preventDefault();
                  onPick(c);
                }
              : undefined
          }
        >
          {t(`notifications.tab.${c}`)}
          {unread[c] ? (
            <span className="badge tab-count" aria-label={t("notifications.tabUnread", { count: unread[c] })}>
              {unread[c]}
            </span>
          ) : null}
          {c !== current && lit[c] ? <span className="dot" role="img" aria-label={t("notifications.newDot")} /> : null}
        </Link>
      ))}
    </nav>
  );
}

function playSound() {
  try {
    if (localStorage.getItem(SOUND_KEY) === "off") return;
    const audio = new Audio("/notification.wav");
    audio.volume = SOUND_VOLUME;
    void audio.play().catch(() => {});
  } catch {
    /* no sound where audio or storage is unavailable */
  }
}

export function NotificationBell({ data, now }: { data: NotificationList; now: number }) {
  const { t } = useTranslation();
  const location = useLocation();
  const [tab, setTab] = useState<Category>(data.category);
  const [lit, setLit] = useState<Partial<Record<Category, boolean>>>({});
  const list = useFetcher<{ list: NotificationList; now: number }>();
  const actions = useFetcher();
  const open = useRef(false);
  const tabRef = useRef(tab);
  tabRef.current = tab;
  // the shell's data is the default tab's; another tab's comes from the page's loader
  const fetched = list.data?.list.category === tab ? list.data.list : null;
  const shown = tab === data.category ? data : (fetched ?? { items: [], more: false, category: tab });
  const shownRef = useRef(shown);
  shownRef.current = shown;

  useEffect(() => {
    const onNews = (e: Event) => {
      const category = (e as CustomEvent<{ category?: string }>).detail?.category as Category | undefined;
      playSound();
      if (!category) return;
      // news in the open tab comes on top (its data reloads); another tab's dot lights
      if (category === tabRef.current) {
        if (tabRef.current !== data.category) list.load(`/notifications?tab=${category}`);
      } else setLit((l) => ({ ...l, [category]: true }));
    };
    window.addEventListener(NEW_NOTIFICATION_EVENT, onNews);
    return () => window.removeEventListener(NEW_NOTIFICATION_EVENT, onNews);
  }, [data.category, list]);

  const readTab = (c: Category, lastId?: number) => {
    if (!data.unread[c]) return;
    actions.submit({ intent: "read", category: c, lastId: String(lastId ?? 0), redirectTo: location.pathname }, { method: "post", action: "/notifications" });
  };
  const pick = (c: Category) => {
    setTab(c);
    setLit((l) => ({ ...l, [c]: false }));
    if (c !== data.category) list.load(`/notifications?tab=${c}`);
    readTab(c);
  };
  const onToggle = (e: React.SyntheticEvent<HTMLDetailsElement>) => {
    const isOpen = e.currentTarget.open;
    if (isOpen === open.current) return;
    open.current = isOpen;
    // spec section 4: opening reads the first tab shown, closing marks every notification seen
    if (isOpen) readTab(tabRef.current, shownRef.current.items[0]?.id);
    else if (data.unseen) actions.submit({ intent: "seen", redirectTo: location.pathname }, { method: "post", action: "/notifications" });
  };
  return (
    <details className="notification-bell" onKeyDown={closeMenuOnEscape} onToggle={onToggle}>
      <summary aria-label={t("notifications.open", { count: data.unseen })} className="bar-button">
        <Icon name="bell" />
        <span className="bar-text">{t("notifications.title")}</span>
        {data.unseen ? <span className="badge unread">{data.unseen}</span> : null}
      </summary>
      <div className="notification-panel">
        <NotificationTabs current={tab} unread={data.unread} href={(c) => `/notifications?tab=${c}`} onPick={pick} lit={lit} />
        <NotificationItems items={shown.items} now={now} />
        <div className="row">
          {data.unseen ? <MarkSeenForm /> : null}
          {shown.more ? <Link to={`/notifications?tab=${tab}`}>{t("notifications.showMore")}</Link> : null}
        </div>
      </div>
    </details>
  );
}

/** The sound's switch, stored in this browser (JavaScript only). */
export function SoundToggle() {
  const { t } = useTranslation();
  const [on, setOn] = useState<boolean | null>(null);
  useEffect(() => setOn(localStorage.getItem(SOUND_KEY) !== "off"), []);
  if (on === null) return null;
  return (
    <label className="sound-toggle">
      <input
        type="checkbox"
        checked={on}
        onChange={(e) => {
          localStorage.setItem(SOUND_KEY, e.target.checked ? "on" : "off");
          setOn(e.target.checked);
        }}
      />{" "}
      {t("notifications.sound")}
    </label>
  );
}

function urlBase64ToUint8Array(base64: string) {
  const padded = (base64 + "=".repeat((4 - (base64.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(padded);
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

/** Browser push (JavaScript only): registers /push-sw.js, subscribes with the VAPID key, stores it by /api/fcm/token (the session's cookie). */
export function PushToggle() {
  const { t } = useTranslation();
  const [state, setState] = useState<"unknown" | "unsupported" | "denied" | "off" | "on">("unknown");
  useEffect(() => {
    if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return setState("unsupported");
    if (Notification.permission === "denied") return setState("denied");
    navigator.serviceWorker
      .getRegistration("/push-sw.js")
      .then((r) => r?.pushManager.getSubscription())
      .then((s) => setState(s ? "on" : "off"))
      .catch(() => setState("off"));
  }, []);
  if (state === "unknown") return null;
  if (state !== "off") return <p className="muted">{t(`notifications.push.${state}`)}</p>;
  const enable = async () => {
    if ((await Notification.requestPermission()) !== "granted") return setState("denied");
    const registration = await navigator.serviceWorker.register("/push-sw.js");
    const { publicKey } = (await (await fetch("/api/fcm/token")).json()) as { publicKey: string };
    const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: urlBase64ToUint8Array(publicKey) });
    await fetch("/api/fcm/token", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ subscription: subscription.toJSON(), type: "webpush", domain: location.host }),
    });
    setState("on");
  };
  return (
    <button type="button" className="button" onClick={() => void enable()}>
      {t("notifications.push.enable")}
    </button>
  );
}
