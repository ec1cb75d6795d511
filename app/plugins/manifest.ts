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
});

export const pluginManifest = z.object({
  id: z.string().regex(/^[a-z_]+$/),
  title: text,
  status: z.enum(["planned", "available"]),
  /** Usable by trial accounts (account_type 0). */
  trial: z.boolean(),
  menu: z.array(z.object({ id: z.string(), path: z.string().startsWith("/"), icon: z.string(), rule: z.enum(MENU_RULES), label: text })),
  routes: z.array(route),
  publicRoutes: z.array(route),
  /**
   * Report widgets: a Vega-Lite spec file in the plugin folder (strings "t:key" are translated),
   * a data loader by name (registered in plugins/reports/widgets.server.ts) and the dashboards
   * that show it (dashboard, omnichannel, call, interactions, public).
   */
  widgets: z.array(
    z.object({ id: z.string().regex(/^[a-z_]+$/), title: text, spec: z.string(), loader: z.string(), dashboards: z.array(z.string()).default([]) }),
  ),
  permissions: z.array(z.string()),
  socketEvents: z.array(z.string()),
});

export type PluginManifest = z.infer<typeof pluginManifest>;
export type MenuItem = PluginManifest["menu"][number];
