// The admin's announcement to every agent: one text at a time, shown as a banner in the shell
// until each person dismisses it (a cookie holding the time of the one they dismissed).
import { getDb } from "@db/client";
import { audit } from "~/accounts/audit.server";
import { broadcast } from "~/realtime.server";
import { getSetting, setSetting } from "./settings.server";
import { SERVER_EVENTS } from "~/realtime-events";
import { activeUserIds, addNotifications, toldAll } from "~/conversation/notifications.server";

export const MAX_ANNOUNCEMENT = 500;

export interface Announcement {
  text: string;
  by: string;
  at: number;
}

/** The announcement, from the setting's value (read it with the workspace, see getWorkspace). */
export function parseAnnouncement(raw: string): Announcement | null {
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Announcement;
    return typeof parsed.text === "string" && parsed.text ? parsed : null;
  } catch {
    return null;
  }
}

export async function currentAnnouncement() {
  return parseAnnouncement(await getSetting("announcement"));
}

/** Publishes (or, with empty text, withdraws) the announcement, audited; open pages show it at once. */
export async function announce(by: { id: number; name: string }, text: string, ip = "") {
  const trimmed = text.trim().slice(0, MAX_ANNOUNCEMENT);
  const now = Date.now();
  const everyone = await getDb().transaction(async (tx) => {
    await setSetting("announcement", trimmed ? JSON.stringify({ text: trimmed, by: by.name, at: now }) : "", tx);
    await audit({ action: "settings.changed", actor: by, ip, target: { type: "settings", id: "announcement" }, detail: { announcement: trimmed } }, tx);
    if (!trimmed) return [];
    // every active person but its author finds it in the notification centre too (and a push)
    const ids = await activeUserIds(tx, by.id);
    await addNotifications(tx, ids, { type: "announcement", channel: "system", ticketNumber: null, title: trimmed, body: by.name }, now);
    return ids;
  });
  broadcast(SERVER_EVENTS.announcement, {});
  toldAll(everyone);
}
