// The socket of a signed-in page (JavaScript only): connection banner, network error screen,
// messages and list deltas into the store (app/realtime-store.ts), and reloading what the page
// shows when the server says something rarer changed.
import { Link, useLocation, useNavigate, useRevalidator } from "@remix-run/react";
import { LogoutForm } from "./UserMenu";
import { pageVersionId } from "~/version";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { popupFor } from "~/popups";
import {
  AUTH_RECHECK_MS,
  PRESENCE_EVENT,
  NEW_NOTIFICATION_EVENT,
  MAX_FAILURES,
  MAX_NOTICES,
  SOCKET_OPTIONS,
  clearTyping,
  forgetMessage,
  markFresh,
  realtime,
  removedFrom,
  receiveMessages,
  retryDelay,
  setDeliveryStates,
  setSocket,
  setTyping,
  useRealtime,
} from "~/realtime-store";
import { SERVER_EVENTS, CLIENT_EVENTS } from "~/realtime-events";

/**
 * Events after which the open page and the list reload their data. Not newMessage (it carries
 * the messages), not a list's delta (updateTicket, channelDataUpdated with lastMessage), not
 * unreadCount2 (the tab title follows it).
 */
const E = SERVER_EVENTS;
const CHANGES = [
  E.ticketStatusChanged,
  E.createTicket,
  E.syncDelete,
  E.receiveNote,
  E.deleteNote,
  E.addPin,
  E.removePin,
  E.addReaction,
  E.removeReaction,
  E.participantChanged,
  E.settingsChanged,
  E.liveChatQueue,
  E.liveChatEnded,
  E.liveChatMergeChanged,
  E.removeLiveChat,
  E.announcement,
  E.newNotification,
  E.receiveKanbanNotification,
  E.newEmotion,
  E.newContext,
];
/** A burst of events is batched into one reload, but never held back longer than this. */
const RELOAD_DEBOUNCE_MS = 200;
const RELOAD_MAX_WAIT_MS = 1_000;
/** Lists reload for news of a conversation they do not show at most this often. */
const LIST_RELOAD_MS = 5_000;
/** A reload after a long time offline waits up to this long, at random. */
const RECONNECT_SPREAD_MS = 5_000;
/** Offline longer than this, a visible page reloads its data once after coming back (lists may have moved). */
const STALE_AFTER_MS = 60_000;
/** The open conversation is marked read at most this often while messages arrive. */
const READ_EVERY_MS = 1_000;

type Delta = { ticketId: number; ticketNumber: number; lastMessage?: string; updatedAt?: number; by?: string };

/** `viewer`: who is looking, for the agent popups (app/popups.ts) and list deltas. */
export function Realtime({ viewer }: { viewer: { type: string; username: string; popupOnCall: boolean } }) {
  const revalidator = useRevalidator();
  const navigate = useNavigate();
  const location = useLocation();
  const latest = useRef({ revalidator, navigate, pathname: location.pathname, viewer });
  latest.current = { revalidator, navigate, pathname: location.pathname, viewer };

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let downSince = 0;
    realtime.me = viewer.username;
    // reloads are batched (a burst of events costs one round trip) and wait while the tab is
    // hidden: reloading marks the open conversation read, which only a person looking may do
    let pending = false;
    let firstAsked = 0;
    const reload = () => {
      clearTimeout(timer);
      if (document.hidden) {
        pending = true;
        return;
      }
      firstAsked ||= Date.now();
      const wait = Math.max(0, Math.min(RELOAD_DEBOUNCE_MS, firstAsked + RELOAD_MAX_WAIT_MS - Date.now()));
      timer = setTimeout(() => {
        firstAsked = 0;
        latest.current.revalidator.revalidate();
      }, wait);
    };
    const onVisible = () => {
      if (!document.hidden && pending) {
        pending = false;
        reload();
      }
    };
    document.addEventListener("visibilitychange", onVisible);
    // the session is re-checked every 5 minutes: reloading the data asks the server who we are
    const recheck = setInterval(reload, AUTH_RECHECK_MS);
    let cleanup = () => {};
    import("socket.io-client").then(({ io }) => {
      if (cancelled) return;
      const socket = io(SOCKET_OPTIONS);
      setSocket(socket);
      // the online-agents popup listens for this on window: it may open before the socket exists
      socket.on(SERVER_EVENTS.statusUpdated, () => window.dispatchEvent(new Event(PRESENCE_EVENT)));
      socket.on("connect", () => {
        realtime.status = "connected";
        realtime.failures = 0;
        // the open conversation rejoins its room and asks what it missed (LiveConversation); only
        // a page offline for long reloads its data, at a random moment so they do not all at once
        if (downSince && Date.now() - downSince > STALE_AFTER_MS) setTimeout(reload, Math.random() * RECONNECT_SPREAD_MS);
        downSince = 0;
      });
      socket.on("disconnect", (reason) => {
        realtime.status = "disconnected";
        downSince ||= Date.now();
        // the server cut us off on purpose (restart, session gone, too many events): try again
        // later, as socket.io does for other cuts; a session that is gone is refused then
        if (reason === "io server disconnect") retry = setTimeout(() => socket.connect(), retryDelay());
      });
      socket.on("connect_error", (error) => {
        // the server refused the session (signed out elsewhere, account disabled): load the page
        // afresh, which lands on the login form, even in a hidden tab
        if (error.message === "unauthorized") return window.location.reload();
        realtime.status = "disconnected";
        realtime.failures++;
        downSince ||= Date.now();
      });
      for (const event of CHANGES) socket.on(event, reload);
      // events of other nodes may have been lost (their Redis was away): the open conversation
      // asks what it missed, the lists reload, each page at a moment of its own
      socket.on(SERVER_EVENTS.resync, () => {
        realtime.resyncs++;
        setTimeout(reload, Math.random() * RECONNECT_SPREAD_MS);
      });
      // a message in a conversation whose room this page is in: shown at once, without a reload
      let lastRead = 0;
      let readTimer: ReturnType<typeof setTimeout> | undefined;
      socket.on(SERVER_EVENTS.newMessage, (e: { ticketId: number; messages?: { id: number }[] }) => {
        if (e.messages) receiveMessages(e.ticketId, e.messages);
        else realtime.catchUp[e.ticketId] = (realtime.catchUp[e.ticketId] ?? 0) + 1; // an event without them: ask
        // a person looking at it has read it (at most once a second while a busy chat runs)
        if (document.hidden || readTimer) return;
        readTimer = setTimeout(
          () => {
            readTimer = undefined;
            lastRead = Date.now();
            if (!document.hidden) socket.emit(CLIENT_EVENTS.readMessage, { ticketId: e.ticketId });
          },
          Math.max(0, lastRead + READ_EVERY_MS - Date.now()),
        );
      });
      // the notification bell plays its sound and lights its tabs (conversation/components/Notifications)
      socket.on(SERVER_EVENTS.newNotification, (e: { category?: string }) => window.dispatchEvent(new CustomEvent(NEW_NOTIFICATION_EVENT, { detail: e })));
      socket.on(SERVER_EVENTS.syncDelete, (e: { ticketId: number; messageId: number }) => forgetMessage(e.ticketId, e.messageId));
      // the tab title counts unread conversations, as the shell's loader wrote it
      socket.on(SERVER_EVENTS.unreadCount2, (c: { ticket: number; livechat: number; chat: number }) => {
        const n = c.ticket + c.livechat + c.chat;
        document.title = `${n ? `(${n}) ` : ""}${document.title.replace(/^\(\d+\) /, "")}`;
      });
      // news about a conversation other than the open one: the list highlights it for 5 s
      const fresh = (e: { ticketId: number; ticketNumber: number }) => {
        if (!latest.current.pathname.endsWith(`/${e.ticketNumber}`)) markFresh(e.ticketId);
      };
      // a list's news: a new message's delta patches the item in place; other changes, or an item
      // this list does not show (it may belong at its top), reload
      // a busy conversation this list does not show would reload it on every message: at most
      // once every LIST_RELOAD_MS for those
      let listReloadAt = 0;
      let listTimer: ReturnType<typeof setTimeout> | undefined;
      const listReload = () => {
        listTimer ??= setTimeout(
          () => {
            listTimer = undefined;
            listReloadAt = Date.now();
            reload();
          },
          Math.max(0, listReloadAt + LIST_RELOAD_MS - Date.now()),
        );
      };
      const listNews = (e: Delta) => {
        fresh(e);
        if (e.lastMessage === undefined) return reload();
        const shown = document.querySelector(`.ticket-item[data-ticket="${e.ticketNumber}"]`);
        if (!shown) return listReload();
        realtime.listDelta[e.ticketId] = { lastMessage: e.lastMessage, updatedAt: e.updatedAt ?? Date.now(), by: e.by ?? "" };
      };
      socket.on(SERVER_EVENTS.updateTicket, listNews);
      // news of the department's tickets: agents apply it, admins ignore it (spec section 4)
      socket.on(SERVER_EVENTS.channelDataUpdated, (e: Delta) => {
        if (latest.current.viewer.type !== "admin") listNews(e);
      });
      socket.on(SERVER_EVENTS.participantChanged, (e: { ticketId: number; ticketNumber: number; added: boolean; canRead?: boolean; path?: string }) => {
        if (!e.added && !e.canRead) removedFrom(e, latest.current.pathname.endsWith(`/${e.ticketNumber}`));
        if (e.added && e.path) notify(e.ticketNumber, e.path);
      });
      // a live chat removed while open: home, as for a removed participant
      socket.on(SERVER_EVENTS.removeLiveChat, (e: { ticketNumber: number }) => {
        if (latest.current.pathname === `/livechat/${e.ticketNumber}`) latest.current.navigate("/");
      });
      // a conversation I was just brought into: a notice, wherever the list's filters point
      socket.on(SERVER_EVENTS.createTicket, (e: { ticketNumber: number; path?: string; channel?: string; severity?: string; title?: string }) => {
        if (!e.path) return;
        const kind = popupFor(latest.current.viewer, e);
        if (kind) realtime.popups = [{ ticketNumber: e.ticketNumber, path: e.path, title: e.title ?? "", kind }, ...realtime.popups].slice(0, MAX_NOTICES);
        else notify(e.ticketNumber, e.path);
      });
      socket.on(SERVER_EVENTS.newVersion, (v: { id: number; description: string }) => {
        if (v.id > pageVersionId()) realtime.newVersion = v;
      });
      socket.on(SERVER_EVENTS.setTyping, (e: { ticketId: number; username: string; name: string }) => setTyping(e.ticketId, e.username, e.name));
      socket.on(SERVER_EVENTS.removeTyping, (e: { ticketId: number; username: string }) => clearTyping(e.ticketId, e.username));
      socket.on(SERVER_EVENTS.messageStateChanged, setDeliveryStates);
      cleanup = () => socket.close();
    });
    return () => {
      cancelled = true;
      clearTimeout(timer);
      clearTimeout(retry);
      clearInterval(recheck);
      document.removeEventListener("visibilitychange", onVisible);
      cleanup();
    };
  }, []);

  return (
    <>
      <ConnectionBanner />
      <NewVersion />
      <Notices />
      <Popups />
    </>
  );
}

/** New-conversation notices (at most three on screen, newest first). */
function notify(ticketNumber: number, path: string) {
  realtime.notices = [{ ticketNumber, path, at: Date.now() }, ...realtime.notices.filter((n) => n.path !== path)].slice(0, MAX_NOTICES);
}

function NewVersion() {
  const { t } = useTranslation();
  const { newVersion } = useRealtime();
  if (!newVersion) return null;
  return (
    <div className="banner banner-orange" role="status">
      <span>{t("realtime.newVersion", { description: newVersion.description })}</span>
      <button type="button" className="button" onClick={() => window.location.reload()}>
        {t("realtime.refresh")}
      </button>
    </div>
  );
}

const dismiss = (path: string) => (realtime.notices = realtime.notices.filter((n) => n.path !== path));

function Notices() {
  const { t } = useTranslation();
  const snap = useRealtime();
  if (!snap.notices.length) return null;
  return (
    <ul className="notices" aria-live="polite">
      {snap.notices.map((n) => (
        <li key={n.path} className="notice-toast">
          <Link to={n.path} onClick={() => dismiss(n.path)}>
            {t("realtime.newTicket", { number: n.ticketNumber })}
          </Link>
          <button type="button" className="link-button" aria-label={t("realtime.dismiss")} onClick={() => dismiss(n.path)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

const closePopup = (path: string) => (realtime.popups = realtime.popups.filter((p) => p.path !== path));

/** Agent popups for new CALL and high-priority tickets: they stay until opened or dismissed. */
function Popups() {
  const { t } = useTranslation();
  const snap = useRealtime();
  if (!snap.popups.length) return null;
  return (
    <div className="popups">
      {snap.popups.map((p) => (
        <section key={p.path} role="alertdialog" aria-labelledby={`popup-${p.ticketNumber}`} className={`popup popup-${p.kind}`}>
          <p id={`popup-${p.ticketNumber}`}>{t(p.kind === "call" ? "realtime.popupCall" : "realtime.popupHigh", { number: p.ticketNumber, title: p.title })}</p>
          <div className="row">
            <Link className="button primary" to={p.path} onClick={() => closePopup(p.path)}>
              {t("realtime.open")}
            </Link>
            <button type="button" className="button" onClick={() => closePopup(p.path)}>
              {t("realtime.dismiss")}
            </button>
          </div>
        </section>
      ))}
    </div>
  );
}

function ConnectionBanner() {
  const { t } = useTranslation();
  const snap = useRealtime();
  // on <html data-realtime="connected|disconnected|connecting">: tests and styles can wait on it
  useEffect(() => {
    document.documentElement.dataset.realtime = snap.status;
  }, [snap.status]);
  if (snap.status !== "disconnected") return null;
  if (snap.failures > MAX_FAILURES)
    return (
      <div className="network-error" role="alert">
        <h1>{t("realtime.networkTitle")}</h1>
        <p>{t("realtime.networkBody")}</p>
        <div className="inline-form">
          <button type="button" className="button primary" onClick={() => window.location.reload()}>
            {t("realtime.reload")}
          </button>
          <LogoutForm />
        </div>
      </div>
    );
  return (
    <div className="banner banner-red connection-banner" role="status">
      <span>{t("realtime.noConnection")}</span>
      <button type="button" className="button" onClick={() => realtime.socket?.connect()}>
        {t("realtime.reconnect")}
      </button>
    </div>
  );
}
