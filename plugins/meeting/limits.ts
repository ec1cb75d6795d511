// How many people one meeting holds (shared by the server and the page's texts).
// Mesh: every browser sends its media to every other one, so upload and CPU grow with the square
// of the people; three is the most a laptop carries (four and more go through Janus when it runs).
// Through Janus each browser sends once and Janus forwards; bench/meetings on the 2-core dev
// machine (all participants' browsers on it too, load ~17 from other work) held 11 people with
// every feed flowing and dropped feeds at 12, Janus itself under 20% of one core: the browsers
// ran out first. 12 is the default; MEETING_SFU_LIMIT sets what a deployment measured.
export const MESH_LIMIT = 3;
export const SFU_DEFAULT_LIMIT = 12;

export type MediaMode = "sfu" | "mesh";

export function meetingLimit(mode: MediaMode, env: Record<string, string | undefined> = {}) {
  if (mode === "mesh") return MESH_LIMIT;
  const n = Number(env.MEETING_SFU_LIMIT);
  return Number.isInteger(n) && n > 0 ? n : SFU_DEFAULT_LIMIT;
}

/**
 * Whether one more person may join: `present` are the people in the meeting now (a person who is
 * already in, with another tab, counts once: `already`).
 */
export function admits(mode: MediaMode, present: number, already: boolean, env: Record<string, string | undefined> = {}) {
  if (already) return { ok: true as const, limit: meetingLimit(mode, env) };
  const limit = meetingLimit(mode, env);
  return present < limit ? { ok: true as const, limit } : { ok: false as const, limit };
}
