// Responders: plugins that answer customers on messaging channels themselves (the WAUCHAT bot)
// register here from their start module. messagingReceive asks them before it writes whether a new
// conversation is theirs (it then starts Pending: not agents' new work), and calls them inside the
// transaction that stores the customer's message, where they enqueue their job: the message and
// the work it causes are committed together, so a crash loses neither.
import type { Tx } from "@db/client";
import type { ChannelAccount } from "./adapter";

export interface ResponderCall {
  account: ChannelAccount;
  ticketId: number;
  /** The customer's message as stored: its text first (unless empty beside files), then one per file. */
  messageIds: number[];
  text: string;
  /** A new conversation, and whether it started held by a responder (Pending). */
  created: boolean;
  held: boolean;
}

export interface Responder {
  /** Whether a new conversation on this account is this responder's to answer first. */
  holdsNew?(account: ChannelAccount): Promise<boolean>;
  /** In the transaction that stored the customer's message: queue the work (a job) it calls for. */
  received(tx: Tx, call: ResponderCall): Promise<void>;
}

// on globalThis: server.ts and the Remix build are two bundles
const g = globalThis as unknown as { __omnideskResponders?: Map<string, Responder> };
const responders = (g.__omnideskResponders ??= new Map());

/** Registers a plugin's responder (again under the same id replaces it); answers an unregister. */
export function registerResponder(id: string, responder: Responder) {
  responders.set(id, responder);
  return () => void responders.delete(id);
}

export const hasResponders = () => responders.size > 0;

/** Whether some responder takes a new conversation on this account. */
export async function heldByResponder(account: ChannelAccount) {
  for (const r of responders.values()) if (await r.holdsNew?.(account)) return true;
  return false;
}

export async function tellResponders(tx: Tx, call: ResponderCall) {
  for (const r of responders.values()) await r.received(tx, call);
}
