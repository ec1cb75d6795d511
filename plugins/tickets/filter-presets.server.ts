// Saved ticket-list filters per user, each shown with its current count.
import { and, asc, count, eq } from "drizzle-orm";
import { getDb } from "@db/client";
import type { Reader } from "~/conversation/access.server";
import { countCap, countUpTo, listConditions, parseListQuery } from "./ticket-list.server";
import type { Kind } from "~/conversation/channels";
import { listParams } from "~/list-params";

const MAX_PRESETS = 20;

export interface Preset {
  id: number;
  name: string;
  query: string;
  count: number;
  capped: boolean;
}

export async function listPresets(reader: Reader, timeZone: string): Promise<Preset[]> {
  const { db, schema } = getDb();
  const presets = await db.select().from(schema.filterPresets).where(eq(schema.filterPresets.userId, reader.id)).orderBy(asc(schema.filterPresets.id));
  return Promise.all(
    presets.map(async (p) => {
      const params = new URLSearchParams(p.query);
      const kind: Kind = params.get("list") === "chat" ? "chat" : "ticket";
      const { total, capped } = await countUpTo(and(...listConditions(reader, kind, parseListQuery(params), Date.now(), timeZone)), countCap(1));
      return { id: p.id, name: p.name, query: p.query, count: total, capped };
    }),
  );
}

/** Keeps only the list's own filters (not its page), so a preset cannot smuggle anything else into a link. */
export function cleanPresetQuery(query: string) {
  const out = new URLSearchParams();
  for (const [key, value] of listParams(query)) if (key !== "page" && value) out.set(key, value.slice(0, 100));
  return out.toString();
}

export async function savePreset(userId: number, name: string, query: string) {
  const { db, schema } = getDb();
  const [{ n }] = await db.select({ n: count() }).from(schema.filterPresets).where(eq(schema.filterPresets.userId, userId));
  if (Number(n) >= MAX_PRESETS) return false;
  await db.insert(schema.filterPresets).values({ userId, name: name.trim().slice(0, 60), query: cleanPresetQuery(query), createdAt: Date.now() });
  return true;
}

export async function deletePreset(userId: number, id: number) {
  const { db, schema } = getDb();
  await db.delete(schema.filterPresets).where(and(eq(schema.filterPresets.id, id), eq(schema.filterPresets.userId, userId)));
}
