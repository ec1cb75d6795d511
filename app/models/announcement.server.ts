// The admin's announcement to every agent: one text at a time, shown as a banner in the shell
// until each person dismisses it (a cookie holding the time of the one they dismissed).
import { broadcast } from "~/realtime.server";
import { getSetting, setSetting } from "./settings.server";

export const MAX_ANNOUNCEMENT = 500;

export interface Announcement {
  text: string;
  by: string;
  at: number;
}

export async function currentAnnouncement(): Promise<Announcement | null> {
  const raw = await getSetting("announcement");
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Announcement;
    return typeof parsed.text === "string" && parsed.text ? parsed : null;
  } catch {
    return null;
  }
}

/** Publishes (or, with empty text, withdraws) the announcement; open pages show it at once. */
export async function announce(by: string, text: string) {
  const trimmed = text.trim().slice(0, MAX_ANNOUNCEMENT);
  await setSetting("announcement", trimmed ? JSON.stringify({ text: trimmed, by, at: Date.now() }) : "");
  broadcast("announcement", {});
}
