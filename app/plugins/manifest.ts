import { z } from "zod";
import { VARIANTS, type Edition } from "@editions/types";
import { CHANNELS } from "~/conversation/channels";

/**
 * Plugin titles, menu labels and widget titles are translation keys into the plugin's own
 * plugins/<id>/locales/<lang>.json (merged into the "common" namespace by loadMessages),
 * e.g. "plugin_calls.menu.voicemail".
 */
const messageKey = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)+$/, "a dotted translation key such as plugin_calls.title");

/**
 * Who sees a menu item (spec section 6), written in the manifest itself. A rule is "always" or an
 * object with exactly one key; evaluated by allows() in app/permissions.ts.
 */
export type Rule =
  | "always"
  // admins only
  | { admin: true }
  // users holding this permission flag (view_report, call_settings, ...)
  | { permission: string }
  // hide_* flags: admins always; agents unless they hold the flag
  | { notHidden: string }
  // the opposite of a rule (kanban: admins without hide_kanban)
  | { not: Rule }
  | { variant: Edition["variant"] }
  | { clients: number[] }
  // plan numbers (PLAN in app/permissions.ts)
  | { plans: number[] }
  | { anyOf: Rule[] }
  | { allOf: Rule[] };

// strict: a rule object with a second key would otherwise pass with the key silently dropped
export const rule: z.ZodType<Rule> = z.lazy(() =>
  z.union([
    z.literal("always"),
    z.object({ admin: z.literal(true) }).strict(),
    z.object({ permission: z.string().min(1) }).strict(),
    z.object({ notHidden: z.string().min(1) }).strict(),
    z.object({ not: rule }).strict(),
    z.object({ variant: z.enum(VARIANTS) }).strict(),
    z.object({ clients: z.array(z.number().int()).min(1) }).strict(),
    z.object({ plans: z.array(z.number().int()).min(1) }).strict(),
    z.object({ anyOf: z.array(rule).min(1) }).strict(),
    z.object({ allOf: z.array(rule).min(1) }).strict(),
  ]),
);

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
  /**
   * "file#export": a handler (Express's req, res) that serves the path before the Remix handler, for
   * a provider's calls at a high rate (ADR 050). The route file stays: its loader and action call
   * the same code, and it keeps the path in the route table.
   */
  direct: z
    .string()
    .regex(/^(?!.*\.\.)[\w./-]+\.ts#\w+$/)
    .optional(),
});

/** A file inside the plugin folder (no way out of it). */
const pluginFile = z.string().regex(/^(?!.*\.\.)[\w./-]+\.tsx?$/);

export const pluginManifest = z.object({
  // lower case, digits after the first letter (e2ee)
  id: z.string().regex(/^[a-z][a-z0-9_]*$/),
  title: messageKey,
  status: z.enum(["planned", "available"]),
  /** Usable by trial accounts (account_type 0). */
  trial: z.boolean(),
  menu: z.array(z.object({ id: z.string(), path: z.string().startsWith("/"), icon: z.string(), rule, label: messageKey })),
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
  /**
   * Background work of the plugin (listeners, pollers, job kinds): a module exporting
   * `start(): Promise<() => Promise<void>>`, called once by server.ts when the server listens
   * (plugins it requires first); what it returns stops it at shutdown.
   */
  start: pluginFile.optional(),
  /**
   * The channels of spec section 1 this plugin connects customers through: each names its adapter
   * module, exporting `adapter` (a ChannelAdapter of plugins/channels/adapter.ts).
   */
  channels: z.array(z.object({ kind: z.enum(CHANNELS), adapter: pluginFile })).default([]),
  /**
   * What the plugin knows about a conversation, shown in its properties column (a ticket's case,
   * contact, products): "file#export" of an async function of app/conversation/panels.server.ts's
   * PanelInput answering a PanelSection or null. Data only: the host draws it, with and without JS.
   */
  conversationPanel: z
    .string()
    .regex(/^(?!.*\.\.)[\w./-]+\.tsx?#\w+$/)
    .optional(),
  /**
   * What the plugin does to an agent's reply on its way out (the AI plugin translates it into the
   * customer's language): "file#export" of an async function of app/conversation/outgoing.server.ts's
   * OutgoingInput answering an OutgoingAnswer or null (unchanged).
   */
  outgoingReply: z
    .string()
    .regex(/^(?!.*\.\.)[\w./-]+\.tsx?#\w+$/)
    .optional(),
  /**
   * What the plugin does when a call's recording is ready (the AI plugin analyses the voice):
   * "file#export" of an async function of app/conversation/call-recorded.server.ts's
   * (tx, CallRecording), called in the transaction that made it ready (it queues its own durable job).
   */
  callRecorded: z
    .string()
    .regex(/^(?!.*\.\.)[\w./-]+\.tsx?#\w+$/)
    .optional(),
  /**
   * Fields the plugin adds to the auth check's settings (spec section 3; the softphone's sip,
   * sipIp, sipPort, turn): "file#export" of an async function of the signed-in user ({ id })
   * answering an object merged over the host's defaults, for editions that enable the plugin.
   */
  authSettings: z
    .string()
    .regex(/^(?!.*\.\.)[\w./-]+\.tsx?#\w+$/)
    .optional(),
  /**
   * A pathless layout route inside the signed-in shell, around the frame and every shell page:
   * for things that stay mounted from page to page (the softphone). It renders an <Outlet /> and
   * anything of its own must not take room in the shell's grid (fixed position). Its loader
   * answers for signed-out visitors and editions without the plugin too (then it shows nothing).
   */
  shellLayer: pluginFile.optional(),
  /**
   * A short mark on each row of the conversation lists (the SLA's time left): "file#export" of an
   * async function of app/conversation/list-badges.server.ts's BadgeInput answering a badge per
   * ticket id. Data only: the list draws it, with and without JS.
   */
  listBadge: z
    .string()
    .regex(/^(?!.*\.\.)[\w./-]+\.tsx?#\w+$/)
    .optional(),
  /**
   * Records the global search finds (contacts, cases, products): "file#export" of an async function
   * of app/search-hits.server.ts's SearchHitInput answering a SearchHitSection or null. Data only:
   * the search page draws it, with and without JS. The loader checks access itself.
   */
  searchHits: z
    .string()
    .regex(/^(?!.*\.\.)[\w./-]+\.tsx?#\w+$/)
    .optional(),
  /**
   * Who a customer is, for the profile card and GET /api/user/profile/{offset} (the contacts
   * plugin): "file#export" of an async function of app/accounts/customer-profile.server.ts's
   * CustomerProfileInput answering a CustomerProfile or null. The loader checks access itself.
   */
  customerProfile: z
    .string()
    .regex(/^(?!.*\.\.)[\w./-]+\.tsx?#\w+$/)
    .optional(),
  /** Static files under public/ that other websites load (served with CORP cross-origin). */
  sharedFiles: z.array(z.string().startsWith("/")).default([]),
  /**
   * Report widgets: a Vega-Lite spec file in the plugin folder (strings "t:key" are translated),
   * its data loader as "file#export" beside it (an async function of the reports plugin's
   * WidgetInput) and the dashboards that show it (dashboard, omnichannel, call, interactions, public).
   */
  widgets: z.array(
    z.object({
      id: z.string().regex(/^[a-z_]+$/),
      title: messageKey,
      spec: z.string(),
      loader: z.string().regex(/^(?!.*\.\.)[\w./-]+\.tsx?#\w+$/),
      dashboards: z.array(z.string()).default([]),
    }),
  ),
});

export type PluginManifest = z.infer<typeof pluginManifest>;
export type MenuItem = PluginManifest["menu"][number];
