// Agent popups (spec section 4): agents, not admins, get a popup for a new CALL ticket when the
// workspace's popup_on_call setting is 1, and for a new high-severity (H) ticket.

export type PopupKind = "call" | "high";

export function popupFor(viewer: { type: string; popupOnCall: boolean }, ticket: { channel?: string; severity?: string }): PopupKind | null {
  if (viewer.type === "admin") return null;
  if (ticket.channel === "CALL" && viewer.popupOnCall) return "call";
  if (ticket.severity === "H") return "high";
  return null;
}
