// Editions: the files under editions/ with the admin's overrides from the database on top.
import { eq } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { audit, type AuditEvent } from "~/accounts/audit.server";
import { editionFiles, type Edition } from "@editions/index";
import { plugins } from "~/plugins/registry.server";
import { broadcast } from "~/realtime.server";
import { SERVER_EVENTS } from "~/realtime-events";

export interface ResolvedEdition extends Edition {
  /** Plugin ids enabled for this edition after admin toggles, in menu order. */
  enabled: string[];
}

/** "support.*" matches support.example.com; "*.example.com" matches a.example.com; else exact. */
export function hostMatches(pattern: string, host: string) {
  const escaped = pattern
    .trim()
    .toLowerCase()
    .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, "[^]+");
  return new RegExp(`^${escaped}$`).test(host.toLowerCase());
}

export function hostname(hostHeader: string | null) {
  return (hostHeader ?? "").replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
}

export async function listEditions(db: Tx = getDb().db): Promise<ResolvedEdition[]> {
  const { schema } = getDb();
  const [hostRows, toggles] = await Promise.all([db.select().from(schema.editions), db.select().from(schema.pluginToggles)]);
  const allIds = plugins().map((p) => p.id);
  return editionFiles.map((file) => {
    const hostsRow = hostRows.find((r) => r.id === file.id);
    const hosts = hostsRow ? (JSON.parse(hostsRow.hosts) as string[]) : file.hosts;
    const mine = toggles.filter((t) => t.editionId === file.id);
    const isOn = (id: string) => mine.find((t) => t.pluginId === id)?.enabled ?? file.plugins.includes(id);
    // the edition's own order first, then plugins an admin switched on
    const ordered = [...file.plugins.filter((id) => allIds.includes(id)), ...allIds.filter((id) => !file.plugins.includes(id))];
    return { ...file, hosts, enabled: ordered.filter(isOn) };
  });
}

export async function editionForHost(hostHeader: string | null): Promise<ResolvedEdition> {
  const host = hostname(hostHeader);
  const editions = await listEditions();
  return editions.find((e) => e.id !== "default" && e.hosts.some((p) => hostMatches(p, host))) ?? editions.find((e) => e.id === "default")!;
}

/** Saves an edition's plugin set and host patterns in one transaction, audited (what changed) when `by` is given. */
export async function saveEdition(editionId: string, enabledPlugins: string[], hosts: string[], by?: Pick<AuditEvent, "actor" | "ip">) {
  const handle = getDb();
  const { schema } = handle;
  if (!editionFiles.some((e) => e.id === editionId)) throw new Error(`unknown edition ${editionId}`);
  const known = plugins().map((p) => p.id);
  await handle.transaction(async (tx) => {
    if (by) {
      const before = (await listEditions(tx)).find((e) => e.id === editionId)!;
      for (const pluginId of known) {
        const enabled = enabledPlugins.includes(pluginId);
        if (enabled !== before.enabled.includes(pluginId))
          await audit({ ...by, action: "plugin.toggled", target: { type: "plugin", id: pluginId }, detail: { edition: editionId, enabled } }, tx);
      }
      if (before.hosts.join("\n") !== hosts.join("\n"))
        await audit({ ...by, action: "edition.changed", target: { type: "edition", id: editionId }, detail: { hosts: { from: before.hosts, to: hosts } } }, tx);
    }
    await tx.delete(schema.pluginToggles).where(eq(schema.pluginToggles.editionId, editionId));
    await tx.insert(schema.pluginToggles).values(known.map((pluginId) => ({ editionId, pluginId, enabled: enabledPlugins.includes(pluginId) })));
    await tx
      .insert(schema.editions)
      .values({ id: editionId, hosts: JSON.stringify(hosts), updatedAt: Date.now() })
      .onConflictDoUpdate({ target: schema.editions.id, set: { hosts: JSON.stringify(hosts), updatedAt: Date.now() } });
  });
  // open pages reload: menus and plugin routes follow the new settings at once
  broadcast(SERVER_EVENTS.settingsChanged, { edition: editionId });
}

export function parseHostPatterns(text: string) {
  return text
    .split(/[\s,]+/)
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
}

export const HOST_PATTERN = /^(\*\.)?([a-z0-9-]+\.)*[a-z0-9-]+(\.\*)?$|^[a-z0-9-]+\.\*$/;
