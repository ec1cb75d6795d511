// The plugin registry: every plugins/<id>/plugin.json, validated once per process.
import fs from "node:fs";
import path from "node:path";
import { matchPath } from "@remix-run/react";
import { pluginManifest, type PluginManifest } from "./manifest";
import { allows, type Viewer } from "~/permissions";

let cache: PluginManifest[] | undefined;

export function plugins(): PluginManifest[] {
  if (cache) return cache;
  const dir = path.resolve("plugins");
  cache = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "plugin.json")))
    .map((d) => {
      const file = path.join(dir, d.name, "plugin.json");
      const parsed = pluginManifest.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
      if (!parsed.success) throw new Error(`${file}: ${parsed.error.message}`);
      return parsed.data;
    })
    .sort((a, b) => a.id.localeCompare(b.id));
  return cache;
}

/** Channel kinds (spec section 1) the plugins connect, with the plugin module of each one's adapter. */
export function channelAdapterFiles() {
  return plugins().flatMap((p) => p.channels.map((c) => ({ kind: c.kind, pluginId: p.id, file: c.adapter })));
}

/** Static files that other websites load (the live chat's embed script). */
export function sharedFiles(): Set<string> {
  return new Set(plugins().flatMap((p) => p.sharedFiles));
}

/**
 * Whether a plugin's own menu rule lets the viewer in, for checks outside the menu that must agree
 * with it (the Chat tab of the list, the report guards). A missing item is a bug, not a "no".
 */
export function menuItemAllows(pluginId: string, itemId: string, viewer: Viewer): boolean {
  const item = plugins()
    .find((p) => p.id === pluginId)
    ?.menu.find((i) => i.id === itemId);
  if (!item) throw new Error(`No menu item ${pluginId}/${itemId} in the plugin manifests`);
  return allows(item.rule, viewer);
}

/** The last segment, decoded as Remix decodes params, is a number (a visitor token never is). */
function isTicketNumber(pathname: string) {
  try {
    // Remix ignores a trailing slash: /livechat/123/ is the agent's page too
    return /^\d+$/.test(decodeURIComponent(pathname.replace(/\/+$/, "").split("/").at(-1) ?? ""));
  } catch {
    return false;
  }
}

export interface RouteOwner {
  plugin: PluginManifest;
  isPublic: boolean;
  guestOnly: boolean;
  /** Other websites may frame the page. */
  embeddable: boolean;
  /** A provider's callback: exempt from the same-origin check. */
  webhook: boolean;
}

// matchPath compiles its pattern on every call; paths repeat, so answers are kept (bounded)
const owners = new Map<string, RouteOwner | undefined>();

/** Which plugin serves this path, if any (the route table of remix.config.js, read the same way). */
export function pluginForPath(pathname: string): RouteOwner | undefined {
  if (owners.has(pathname)) return owners.get(pathname);
  const owner = findOwner(pathname);
  if (owners.size >= 5000) owners.clear();
  owners.set(pathname, owner);
  return owner;
}

function findOwner(pathname: string): RouteOwner | undefined {
  for (const plugin of plugins()) {
    for (const r of plugin.routes) {
      if (!matchPath(r.path, pathname)) continue;
      const isPublic = !!r.visitorTokens && !isTicketNumber(pathname);
      return { plugin, isPublic, guestOnly: false, embeddable: isPublic && !!r.embeddable, webhook: false };
    }
    for (const r of plugin.publicRoutes)
      if (matchPath(r.path, pathname)) return { plugin, isPublic: true, guestOnly: !!r.guestOnly, embeddable: !!r.embeddable, webhook: !!r.webhook };
  }
  return undefined;
}
