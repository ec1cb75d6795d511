// Realtime state in the browser (valtio): connection, typing, and what events carried: messages
// that arrived in open conversations and list deltas (last message, time, unread). Rarer changes
// revalidate the loaders (batched).
import { proxy, ref, snapshot, useSnapshot } from "valtio";
import type { PopupKind } from "./popups";
import type { Socket } from "socket.io-client";

export type ConnectionStatus = "connecting" | "connected" | "disconnected";

export const RECONNECT_DELAY_MS = 5_000;
/**
 * The socket's options. socket.io doubles the wait after each failed retry, up to the spec's 5 s,
 * each wait moved by up to half of it at random: the first retry comes after 1.25-3.75 s, every
 * later one after 2.5-5 s. 1,000 pages cut off at once so come back spread over 2.5 s, and all of
 * them within 5 s of the cut, instead of all in the same instant.
 */
export const SOCKET_OPTIONS = {
  transports: ["websocket"],
  reconnectionDelay: RECONNECT_DELAY_MS / 2,
  reconnectionDelayMax: RECONNECT_DELAY_MS,
  randomizationFactor: 0.5,
};
/** The same wait for a retry socket.io does not make by itself (the server closed the socket). */
export const retryDelay = (random = Math.random()) => Math.round(RECONNECT_DELAY_MS * (1 - SOCKET_OPTIONS.randomizationFactor * random));
export const AUTH_RECHECK_MS = 300_000;
/** Fired on window when someone's presence changed (the online-agents popup listens). */
export const PRESENCE_EVENT = "omnidesk:statusUpdated";
/** newNotification, passed on to window for the notification bell (its detail: {category}). */
export const NEW_NOTIFICATION_EVENT = "omnidesk:newNotification";
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
  /** The signed-in user's username (list deltas are unread for everyone but their writer). */
  me: "",
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
  /** ticketId -> messages that arrived after the page loaded (newMessage, or the replay after a reconnect). */
  arrived: {} as Record<string, { id: number }[]>,
  /** ticketId -> bumped when the open conversation should ask what it missed (rejoined its room). */
  catchUp: {} as Record<string, number>,
  /** Bumped when the server says events may be missing (Redis was away): every open conversation asks. */
  resyncs: 0,
  /** ticketId -> the list's news of it (newMessage's delta), over what the list loaded. */
  listDelta: {} as Record<string, ListDelta>,
});

export type ListDelta = { lastMessage: string; updatedAt: number; by: string };

/**
 * ticketId -> the newest message an open conversation shows (kept out of the proxy: it changes
 * with every message and nothing renders from it). A rejoin asks the messages after it.
 */
export const lastShown = new Map<number, number>();

/** Messages for an open conversation, each once, in order (an event and a replay may both bring one). */
export function receiveMessages(ticketId: number, messages: { id: number }[]) {
  if (!messages.length) return;
  const known = realtime.arrived[ticketId] ?? [];
  const ids = new Set(known.map((m) => m.id));
  const fresh = messages.filter((m) => !ids.has(m.id));
  if (fresh.length) realtime.arrived[ticketId] = [...known, ...fresh].sort((a, b) => a.id - b.id);
}

export function forgetMessage(ticketId: number, messageId: number) {
  const known = realtime.arrived[ticketId];
  if (known?.some((m) => m.id === messageId)) realtime.arrived[ticketId] = known.filter((m) => m.id !== messageId);
}

/** What the page loaded, then what arrived since (newer than the newest loaded), each once, in order. */
export function mergeMessages<M extends { id: number }>(loaded: readonly M[], arrived: readonly { id: number }[] | undefined): M[] {
  const newest = loaded.length ? loaded[loaded.length - 1].id : 0;
  const later = (arrived ?? []).filter((m) => m.id > newest) as M[];
  return later.length ? [...loaded, ...later] : (loaded as M[]);
}

/** A list item with the news heard since the list loaded (a newer delta wins). */
export function withDelta<I extends { lastMessage: string; updatedAt: number; unread: boolean }>(
  item: I,
  delta: ListDelta | undefined,
  me: string,
  open: boolean,
): I {
  if (!delta || delta.updatedAt <= item.updatedAt) return item;
  // unread for everyone but its writer, unless it is the conversation open on this page
  return { ...item, lastMessage: delta.lastMessage, updatedAt: delta.updatedAt, unread: !open && delta.by !== me };
}

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

/**
 * Conversations this user was taken out of (participantChanged, no longer readable): every list
 * drops them at once; `openRemoved` is the open one, for the "You've got removed!" modal.
 */
export const removals = proxy({ dropped: {} as Record<string, true>, openRemoved: null as number | null });

export function removedFrom(e: { ticketId: number; ticketNumber: number }, isOpen: boolean) {
  removals.dropped[e.ticketId] = true;
  if (isOpen) removals.openRemoved = e.ticketNumber;
  const fresh = { ...realtime.fresh };
  delete fresh[e.ticketId];
  realtime.fresh = fresh;
  const elsewhere = (n: { ticketNumber: number }) => n.ticketNumber !== e.ticketNumber;
  realtime.notices = realtime.notices.filter(elsewhere);
  realtime.popups = realtime.popups.filter(elsewhere);
}

/** The list items still to show (the server's list, less the conversations just removed). */
export function useListed<T extends { id: number }>(items: readonly T[]): T[] {
  const { dropped } = typeof document === "undefined" ? snapshot(removals) : useSnapshot(removals);
  return items.filter((i) => !dropped[i.id]);
}
