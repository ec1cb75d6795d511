// The left navigation: one pure function from registry, edition, admin toggles, viewer and a
// translator for the manifests' label keys.
import type { MenuItem, PluginManifest } from "./plugins/manifest";
import { allows, type Viewer } from "./permissions";
import type { Language } from "./i18n";

export interface NavItem {
  id: string;
  path: string;
  icon: string;
  label: string;
  /** Hidden by the edition default or the user's edit mode; still listed so edit mode can show it. */
  hidden: boolean;
}

export interface NavInput {
  plugins: PluginManifest[];
  /** Enabled plugin ids in the edition's order (the menu follows it). */
  enabledPlugins: string[];
  hiddenByDefault: string[];
  /** The browser's own choice from edit mode: id -> visible. Overrides the edition default. */
  visibility: Record<string, boolean>;
  viewer: Viewer;
  trial: boolean;
  language: Language;
  /** Turns a manifest label key into text in `language` (the server: translatorFor). */
  translate: (key: string) => string;
}

export function buildNav(input: NavInput): NavItem[] {
  const items: NavItem[] = [];
  const { translate } = input;
  for (const id of input.enabledPlugins) {
    const plugin = input.plugins.find((p) => p.id === id);
    if (!plugin || (input.trial && !plugin.trial)) continue;
    for (const item of plugin.menu) {
      if (!allows(item.rule, input.viewer)) continue;
      items.push(toNavItem(item, input, translate));
    }
  }
  return items;
}

function toNavItem(item: MenuItem, input: NavInput, translate: (key: string) => string): NavItem {
  const chosen = input.visibility[item.id];
  const hidden = chosen === undefined ? input.hiddenByDefault.includes(item.id) : !chosen;
  return { id: item.id, path: item.path, icon: item.icon, label: translate(item.label), hidden };
}

/** Menu visibility kept per browser: "id:1,id:0" in the menu_item_visibility cookie. */
export function parseVisibility(raw: string | undefined): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const part of (raw ?? "").split(",")) {
    const m = /^([a-z_]+):([01])$/.exec(part.trim());
    if (m) out[m[1]] = m[2] === "1";
  }
  return out;
}

export function serializeVisibility(v: Record<string, boolean>) {
  return Object.entries(v)
    .map(([id, on]) => `${id}:${on ? 1 : 0}`)
    .join(",");
}
