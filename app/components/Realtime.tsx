// The socket of a signed-in page (JavaScript only): connection banner, network error screen,
// and reloading what the page shows when the server says something changed.
import { Form, useLocation, useNavigate, useRevalidator } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { useSnapshot } from "valtio";
import { AUTH_RECHECK_MS, MAX_FAILURES, RECONNECT_DELAY_MS, clearTyping, realtime, setSocket, setTyping } from "~/realtime-store";

/** Events after which the open page and the list reload their data. */
const CHANGES = [
  "newMessage", "updateTicket", "ticketStatusChanged", "createTicket", "syncDelete", "receiveNote", "deleteNote",
  "add-pin", "remove-pin", "add-reaction", "remove-reaction", "participantChanged", "statusUpdated",
];

export function Realtime() {
  const revalidator = useRevalidator();
  const navigate = useNavigate();
  const location = useLocation();
  const latest = useRef({ revalidator, navigate, pathname: location.pathname });
  latest.current = { revalidator, navigate, pathname: location.pathname };

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let wasDown = false;
    // reloads are batched: a burst of events costs one round trip
    const reload = () => {
      clearTimeout(timer);
      timer = setTimeout(() => latest.current.revalidator.revalidate(), 200);
    };
    // the session is re-checked every 5 minutes: reloading the data asks the server who we are
    const recheck = setInterval(() => latest.current.revalidator.revalidate(), AUTH_RECHECK_MS);
    let cleanup = () => {};
    import("socket.io-client").then(({ io }) => {
      if (cancelled) return;
      const socket = io({ transports: ["websocket"], reconnectionDelay: RECONNECT_DELAY_MS, reconnectionDelayMax: RECONNECT_DELAY_MS, randomizationFactor: 0 });
      setSocket(socket);
      socket.on("connect", () => {
        realtime.status = "connected";
        realtime.failures = 0;
        // messages written while we were away: the loaders fetch them, each once
        if (wasDown) reload();
        wasDown = false;
      });
      socket.on("disconnect", (reason) => {
        realtime.status = "disconnected";
        wasDown = true;
        // the server cut us off on purpose (logout elsewhere, session gone): check who we are
        if (reason === "io server disconnect") reload();
      });
      socket.on("connect_error", () => {
        realtime.status = "disconnected";
        realtime.failures++;
        wasDown = true;
      });
      for (const event of CHANGES) socket.on(event, reload);
      socket.on("participantChanged", (e: { ticketNumber: number; added: boolean; canRead?: boolean }) => {
        if (!e.added && !e.canRead && latest.current.pathname.endsWith(`/${e.ticketNumber}`)) latest.current.navigate("/?notice=removed");
      });
      socket.on("setTyping", (e: { ticketId: number; username: string; name: string }) => setTyping(e.ticketId, e.username, e.name));
      socket.on("removeTyping", (e: { ticketId: number; username: string }) => clearTyping(e.ticketId, e.username));
      cleanup = () => socket.close();
    });
    return () => {
      cancelled = true;
      clearTimeout(timer);
      clearInterval(recheck);
      cleanup();
    };
  }, []);

  return <ConnectionBanner />;
}

function ConnectionBanner() {
  const { t } = useTranslation();
  const snap = useSnapshot(realtime);
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
          <Form method="post" action="/logout">
            <button type="submit" className="button">
              {t("menu.logout")}
            </button>
          </Form>
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
