// Tells this page's socket which list filters it shows (from its address), on every connect and
// whenever they change: the server sends new-ticket notices only for tickets that pass them
// (app/conversation/notice-filter.server.ts).
import { useEffect } from "react";
import { useLocation } from "@remix-run/react";
import { subscribe } from "valtio";
import { realtime } from "~/realtime-store";
import { CLIENT_EVENTS } from "~/realtime-events";

const FILTER_KEYS = ["channel", "department", "campaign", "priority"] as const;

export function ListFilterReporter() {
  const { search } = useLocation();
  useEffect(() => {
    const params = new URLSearchParams(search);
    const filters = Object.fromEntries(FILTER_KEYS.map((k) => [k, params.get(k) ?? ""]));
    let sentTo: unknown = null;
    const send = () => {
      const socket = realtime.socket;
      // a reconnect is a new socket on the server, which knows nothing yet
      if (!socket || realtime.status !== "connected" || sentTo === socket.id) return;
      sentTo = socket.id;
      socket.emit(CLIENT_EVENTS.listFilters, filters);
    };
    send();
    return subscribe(realtime, send);
  }, [search]);
  return null;
}
