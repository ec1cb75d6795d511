// Realtime state in the browser (valtio): connection, typing. Everything else comes from loaders,
// which socket events revalidate.
import { proxy, ref, snapshot, useSnapshot } from "valtio";
import type { PopupKind } from "./popups";
import type { Socket } from "socket.io-client";

export type ConnectionStatus = "connecting" | "connected" | "disconnected";

export const RECONNECT_DELAY_MS = 5_000;
export const AUTH_RECHECK_MS = 300_000;
/** Fired on window when someone's presence changed (the online-agents popup listens). */
export const PRESENCE_EVENT = "omnidesk:statusUpdated";
/** Conversations with news that the list highlights, newest first (spec: stack of 40, 5 s). */
export const NEW_MESSAGE_STACK = 40;
export const HIGHLIGHT_MS = 5_000;
/** Snackbars on screen at most (spec section 9). */
export const MAX_NOTICES = 3;
/** After more than this many failed reconnects the full-page network error shows. */
export const MAX_FAILURES = 5;
export const REMOTE_TYPING_MS = 5_000;
export const LOCAL_TYPING_MS = 2_000;

export const realtime = proxy({
  status: "connecting" as ConnectionStatus,
  failures: 0,
  /** ticketId -> username -> {name, until (ms)} */
  typing: {} as Record<string, Record<string, { name: string; until: number }>>,
  socket: null as Socket | null,
  /** Conversation rooms the server let this page into. */
  rooms: {} as Record<string, boolean>,
  /** ticketId -> when news arrived, at most NEW_MESSAGE_STACK entries. */
  fresh: {} as Record<string, number>,
  /** A newer build the server runs than this page was made with. */
  newVersion: null as { id: number; description: string } | null,
  /** Conversations that arrived for this user: ticket number and page. */
  notices: [] as { ticketNumber: number; path: string; at: number }[],
  /** Agent popups (app/popups.ts), newest first. */
  popups: [] as { ticketNumber: number; path: string; title: string; kind: PopupKind }[],
  /** messageId -> its delivery state as last heard (messageStateChanged), over what the page loaded. */
  delivery: {} as Record<string, { state: string; error: string | null }>,
});

/** A messageStateChanged event: the open conversation shows the new state without a reload. */
export function setDeliveryStates(e: { messageIds: number[]; state: string; error?: string | null }) {
  for (const id of e.messageIds ?? []) realtime.delivery[id] = { state: e.state, error: e.error ?? null };
}

export function setSocket(socket: Socket) {
  realtime.socket = ref(socket) as Socket;
}

export function setTyping(ticketId: number, username: string, name: string, now = Date.now()) {
  realtime.typing[ticketId] = { ...(realtime.typing[ticketId] ?? {}), [username]: { name, until: now + REMOTE_TYPING_MS } };
}

export function clearTyping(ticketId: number, username: string) {
  const current = { ...(realtime.typing[ticketId] ?? {}) };
  delete current[username];
  realtime.typing[ticketId] = current;
}

/** Names typing in a conversation now (entries expire after 5 s without news). */
export function typingNames(typing: (typeof realtime)["typing"], ticketId: number, now = Date.now()) {
  return Object.values(typing[ticketId] ?? {})
    .filter((t) => t.until > now)
    .map((t) => t.name);
}

/**
 * The store for rendering. On the server there is no connection: a plain snapshot (valtio's hook
 * relies on layout effects, which do nothing there). The branch is fixed per environment, so hooks
 * keep their order.
 */
export function useRealtime() {
  return typeof document === "undefined" ? snapshot(realtime) : useSnapshot(realtime);
}

/** Pushes a conversation on the new-message stack (the oldest falls off past 40). */
export function markFresh(ticketId: number, now = Date.now()) {
  const entries: [string, number][] = Object.entries({ ...realtime.fresh, [ticketId]: now });
  entries.sort((a, b) => b[1] - a[1]);
  realtime.fresh = Object.fromEntries(entries.slice(0, NEW_MESSAGE_STACK));
}
