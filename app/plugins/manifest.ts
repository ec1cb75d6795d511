import { z } from "zod";
import { LANGUAGES } from "~/i18n";

const text = z.object(Object.fromEntries(LANGUAGES.map((l) => [l, z.string().min(1)])) as Record<(typeof LANGUAGES)[number], z.ZodString>);

export const MENU_RULES = [
  "always", "admin", "report", "voicemail", "chat", "contacts", "case", "calendar", "call",
  "call_config", "supervisory", "kanban", "analyst", "call_verification", "customer_analysis",
] as const;
export type MenuRule = (typeof MENU_RULES)[number];

const route = z.object({
  path: z.string().startsWith("/"),
  /** Route module inside the plugin folder; absent while the feature is not built yet. */
  file: z.string().optional(),
  /** Logged-in users are sent home from it (spec: /pricing). */
  guestOnly: z.boolean().optional(),
  /**
   * The path also serves visitors: when its last segment is not a number it is a visitor's token
   * and the page is public (spec: /livechat/{n} for agents, /livechat/{token} for visitors).
   */
  visitorTokens: z.boolean().optional(),
  /** Other websites may show the page in a frame (a live chat visitor's pages; public ones only). */
  embeddable: z.boolean().optional(),
  /** Called by a provider's servers, not a browser: exempt from the same-origin check of posts (the route checks the provider's signature). */
  webhook: z.boolean().optional(),
});

/** A file inside the plugin folder (no way out of it). */
const pluginFile = z.string().regex(/^(?!.*\.\.)[\w./-]+\.tsx?$/);

export const pluginManifest = z.object({
  id: z.string().regex(/^[a-z_]+$/),
  title: text,
  status: z.enum(["planned", "available"]),
  /** Usable by trial accounts (account_type 0). */
  trial: z.boolean(),
  menu: z.array(z.object({ id: z.string(), path: z.string().startsWith("/"), icon: z.string(), rule: z.enum(MENU_RULES), label: text })),
  /** Routes inside the agent shell: behind login, and for trial accounts only where `trial`. */
  routes: z.array(route),
  /** Routes outside the shell that check their own access (visitor pages, API twins with their token). */
  publicRoutes: z.array(route),
  /** Plugins whose modules this one imports (as @plugins/<id>/...); no other plugin may be imported. */
  requires: z.array(z.string()).default([]),
  /**
   * Socket handlers: a module exporting attachSocket(socket) (called for every agent socket)
   * and/or attachNamespaces(io) (called once: namespaces of the plugin's own).
   */
  socket: pluginFile.optional(),
  /**
   * A pathless layout route around every page of the shell (the ticket list panel beside the
   * detail column). At most one plugin gives one.
   */
  frame: pluginFile.optional(),
  /** Static files under public/ that other websites load (served with CORP cross-origin). */
  sharedFiles: z.array(z.string().startsWith("/")).default([]),
  /**
   * Report widgets: a Vega-Lite spec file in the plugin folder (strings "t:key" are translated),
   * its data loader as "file#export" beside it (an async function of the reports plugin's
   * WidgetInput) and the dashboards that show it (dashboard, omnichannel, call, interactions, public).
   */
  widgets: z.array(
    z.object({ id: z.string().regex(/^[a-z_]+$/), title: text, spec: z.string(), loader: z.string().regex(/^(?!.*\.\.)[\w./-]+\.tsx?#\w+$/), dashboards: z.array(z.string()).default([]) }),
  ),
});

export type PluginManifest = z.infer<typeof pluginManifest>;
export type MenuItem = PluginManifest["menu"][number];
