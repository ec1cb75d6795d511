// The socket of a signed-in page (JavaScript only): connection banner, network error screen,
// and reloading what the page shows when the server says something changed.
import { Link, useLocation, useNavigate, useRevalidator } from "@remix-run/react";
import { LogoutForm } from "./UserMenu";
import { VERSION } from "~/version";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { popupFor } from "~/popups";
import {
  AUTH_RECHECK_MS,
  PRESENCE_EVENT,
  MAX_FAILURES,
  MAX_NOTICES,
  RECONNECT_DELAY_MS,
  clearTyping,
  markFresh,
  realtime,
  setDeliveryStates,
  setSocket,
  setTyping,
  useRealtime,
} from "~/realtime-store";
import { SERVER_EVENTS, CLIENT_EVENTS } from "~/realtime-events";

/** Events after which the open page and the list reload their data. */
const E = SERVER_EVENTS;
const CHANGES = [
  E.newMessage,
  E.updateTicket,
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
  E.unreadCount2,
  E.announcement,
  E.newNotification,
];
/** A burst of events is batched into one reload, but never held back longer than this. */
const RELOAD_DEBOUNCE_MS = 200;
const RELOAD_MAX_WAIT_MS = 1_000;

/** `viewer`: who is looking, for the agent popups (app/popups.ts). */
export function Realtime({ viewer }: { viewer: { type: string; popupOnCall: boolean } }) {
  const revalidator = useRevalidator();
  const navigate = useNavigate();
  const location = useLocation();
  const latest = useRef({ revalidator, navigate, pathname: location.pathname, viewer });
  latest.current = { revalidator, navigate, pathname: location.pathname, viewer };

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let wasDown = false;
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
      const socket = io({ transports: ["websocket"], reconnectionDelay: RECONNECT_DELAY_MS, reconnectionDelayMax: RECONNECT_DELAY_MS, randomizationFactor: 0 });
      setSocket(socket);
      // the online-agents popup listens for this on window: it may open before the socket exists
      socket.on(SERVER_EVENTS.statusUpdated, () => window.dispatchEvent(new Event(PRESENCE_EVENT)));
      socket.on("connect", () => {
        realtime.status = "connected";
        realtime.failures = 0;
        socket.emit(CLIENT_EVENTS.tellOnline);
        // messages written while we were away: the loaders fetch them, each once
        if (wasDown) reload();
        wasDown = false;
      });
      socket.on("disconnect", (reason) => {
        realtime.status = "disconnected";
        wasDown = true;
        // the server cut us off on purpose (session gone, or too many events): check who we are,
        // and try again later; socket.io does not retry this case by itself
        if (reason === "io server disconnect") {
          reload();
          retry = setTimeout(() => socket.connect(), RECONNECT_DELAY_MS);
        }
      });
      socket.on("connect_error", (error) => {
        // the server refused the session (signed out elsewhere, account disabled): load the page
        // afresh, which lands on the login form, even in a hidden tab
        if (error.message === "unauthorized") return window.location.reload();
        realtime.status = "disconnected";
        realtime.failures++;
        wasDown = true;
      });
      for (const event of CHANGES) socket.on(event, reload);
      // news about a conversation other than the open one: the list highlights it for 5 s
      const fresh = (e: { ticketId: number; ticketNumber: number }) => {
        if (!latest.current.pathname.endsWith(`/${e.ticketNumber}`)) markFresh(e.ticketId);
      };
      socket.on(SERVER_EVENTS.updateTicket, fresh);
      // news of the department's tickets: agents apply it, admins ignore it (spec section 4)
      socket.on(SERVER_EVENTS.channelDataUpdated, (e: { ticketId: number; ticketNumber: number }) => {
        if (latest.current.viewer.type === "admin") return;
        fresh(e);
        reload();
      });
      socket.on(SERVER_EVENTS.participantChanged, (e: { ticketNumber: number; added: boolean; canRead?: boolean; path?: string }) => {
        if (!e.added && !e.canRead && latest.current.pathname.endsWith(`/${e.ticketNumber}`)) latest.current.navigate("/?notice=removed");
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
        if (v.id > VERSION.id) realtime.newVersion = v;
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
