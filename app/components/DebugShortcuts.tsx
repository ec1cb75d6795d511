// The debug shortcuts' effects (keys in app/debug-shortcuts.ts). Rendered only for admins, or for
// everyone when the workspace's debug_shortcuts setting is 1; JavaScript only, as keys are.
import { useEffect, useRef, useState } from "react";
import { useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { DEBUG_SHORTCUTS, debugActionFor, shortcutLabel, type DebugAction } from "~/debug-shortcuts";
import { realtime, useRealtime } from "~/realtime-store";
import { CLIENT_EVENTS } from "~/realtime-events";
import { pageVersionId } from "~/version";
import { useDialogFocus } from "./dialog-focus";

const MAX_ERRORS = 50;
const SOCKET_DEBUG_KEY = "omnidesk:socketDebug";
/** The page's errors since it loaded, newest first (the error log). */
const errors: { at: number; message: string }[] = [];
let listening = false;

function collectErrors() {
  if (listening) return;
  listening = true;
  const keep = (message: string) => errors.unshift({ at: Date.now(), message }) > MAX_ERRORS && errors.pop();
  window.addEventListener("error", (e) => keep(e.message || String(e.error)));
  window.addEventListener("unhandledrejection", (e) => keep(e.reason instanceof Error ? e.reason.message : String(e.reason)));
}

/** socket.io debug: every event in and out of this page's socket goes to the console. */
function logSocket(on: boolean) {
  const socket = realtime.socket;
  if (!socket) return;
  const incoming = (event: string, ...args: unknown[]) => console.debug("socket.io <-", event, ...args);
  const outgoing = (event: string, ...args: unknown[]) => console.debug("socket.io ->", event, ...args);
  socket.offAny();
  socket.offAnyOutgoing();
  if (on) {
    socket.onAny(incoming);
    socket.onAnyOutgoing(outgoing);
  }
}

type Panel = { action: DebugAction; text?: string };

export default function DebugShortcuts({ user }: { user: { name: string; username: string; type: string } }) {
  const { t } = useTranslation();
  const [panel, setPanel] = useState<Panel | null>(null);
  const [actionMode, setActionMode] = useState(false);
  const [crash, setCrash] = useState(false);
  const [socketDebug, setSocketDebug] = useState(false);
  const snap = useRealtime();

  useEffect(() => {
    collectErrors();
    setSocketDebug(sessionStorage.getItem(SOCKET_DEBUG_KEY) === "1");
  }, []);
  // (re)applied when the socket is replaced or the toggle changes
  useEffect(() => logSocket(socketDebug), [socketDebug, snap.socket]);

  useEffect(() => {
    const run = (action: DebugAction) => {
      switch (action) {
        case "crash":
          return setCrash(true);
        case "socketIoDebug": {
          const on = sessionStorage.getItem(SOCKET_DEBUG_KEY) !== "1";
          sessionStorage.setItem(SOCKET_DEBUG_KEY, on ? "1" : "0");
          setSocketDebug(on);
          return setPanel({ action, text: t(on ? "debug.socketIoOn" : "debug.socketIoOff") });
        }
        case "testSend": {
          const socket = realtime.socket;
          const sent = Date.now();
          setPanel({ action, text: t("debug.testSending") });
          if (!socket?.connected) return setPanel({ action, text: t("debug.testNoAnswer") });
          socket
            .timeout(5000)
            .emit(CLIENT_EVENTS.debugPing, {}, (error: Error | null) =>
              setPanel({ action, text: error ? t("debug.testNoAnswer") : t("debug.testAnswered", { ms: Date.now() - sent }) }),
            );
          return;
        }
        case "testNotification": {
          const title = t("debug.notificationTitle");
          const body = t("debug.notificationBody");
          if ("Notification" in window) {
            if (Notification.permission === "granted") new Notification(title, { body });
            else if (Notification.permission === "default") void Notification.requestPermission();
          }
          return setPanel({ action, text: body });
        }
        default:
          return setPanel({ action });
      }
    };
    const onDown = (e: KeyboardEvent) => {
      if (e.key === "Alt" && !e.repeat && !e.shiftKey && !e.ctrlKey && !e.metaKey) setActionMode(true);
      const action = debugActionFor(e);
      if (!action) return;
      e.preventDefault();
      setActionMode(false);
      run(action);
    };
    const onUp = (e: KeyboardEvent) => {
      if (e.key === "Alt") setActionMode(false);
    };
    const off = () => setActionMode(false);
    document.addEventListener("keydown", onDown);
    document.addEventListener("keyup", onUp);
    window.addEventListener("blur", off);
    return () => {
      document.removeEventListener("keydown", onDown);
      document.removeEventListener("keyup", onUp);
      window.removeEventListener("blur", off);
    };
  }, [t]);

  if (crash) throw new Error(t("debug.crashMessage"));
  return (
    <>
      {actionMode ? (
        <aside className="debug-action-mode" aria-label={t("debug.actionMode")} data-debug="action-mode">
          <strong>{t("debug.actionMode")}</strong>
          <ul>
            {Object.entries(DEBUG_SHORTCUTS).map(([code, action]) => (
              <li key={code}>
                <kbd>{shortcutLabel(code)}</kbd> {t(`debug.${action}`)}
              </li>
            ))}
          </ul>
        </aside>
      ) : null}
      {panel ? <DebugPanel panel={panel} user={user} socketDebug={socketDebug} onClose={() => setPanel(null)} /> : null}
    </>
  );
}

function DebugPanel({
  panel,
  user,
  socketDebug,
  onClose,
}: {
  panel: Panel;
  user: { name: string; username: string; type: string };
  socketDebug: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const ref = useRef<HTMLElement>(null);
  const snap = useRealtime();
  const location = useLocation();
  useDialogFocus(ref, onClose);
  const rooms = Object.entries(snap.rooms)
    .filter(([, on]) => on)
    .map(([id]) => id);
  let body: React.ReactNode = panel.text ? <p role="status">{panel.text}</p> : null;
  if (panel.action === "socket")
    body = (
      <dl className="debug-list">
        <dt>{t("debug.status")}</dt>
        <dd data-debug="socket-status">{snap.status}</dd>
        <dt>{t("debug.socketId")}</dt>
        <dd>{snap.socket?.id ?? "-"}</dd>
        <dt>{t("debug.failures")}</dt>
        <dd>{snap.failures}</dd>
        <dt>{t("debug.rooms")}</dt>
        <dd>{rooms.join(", ") || "-"}</dd>
        <dt>{t("debug.socketIoDebug")}</dt>
        <dd>{t(socketDebug ? "debug.on" : "debug.off")}</dd>
      </dl>
    );
  if (panel.action === "errors")
    body = errors.length ? (
      <ol className="debug-errors">
        {errors.map((e, i) => (
          <li key={i}>
            <time dateTime={new Date(e.at).toISOString()}>{new Date(e.at).toLocaleTimeString()}</time> {e.message}
          </li>
        ))}
      </ol>
    ) : (
      <p>{t("debug.noErrors")}</p>
    );
  if (panel.action === "variables")
    body = (
      <dl className="debug-list">
        <dt>{t("debug.user")}</dt>
        <dd>
          {user.name} ({user.username}, {user.type})
        </dd>
        <dt>{t("debug.language")}</dt>
        <dd>{typeof document === "undefined" ? "" : document.documentElement.lang}</dd>
        <dt>{t("debug.version")}</dt>
        <dd>{pageVersionId()}</dd>
        <dt>{t("debug.path")}</dt>
        <dd>{location.pathname + location.search}</dd>
        <dt>{t("debug.status")}</dt>
        <dd>{snap.status}</dd>
      </dl>
    );
  return (
    <section ref={ref} className="debug-panel" role="dialog" aria-labelledby="debug-panel-title" data-debug={panel.action}>
      <header className="row">
        <h2 id="debug-panel-title">{t(`debug.${panel.action}`)}</h2>
        <button type="button" className="icon-button" onClick={onClose} aria-label={t("debug.close")}>
          ×
        </button>
      </header>
      {body}
    </section>
  );
}
