// Classic Remix compiler. Every route is declared here: the core routes of app/ and, read from
// plugins/<id>/plugin.json, the routes of each feature plugin (see docs/decisions/002-plugin-routes.md).
import fs from "node:fs";
import path from "node:path";

const NOT_AVAILABLE = "shell/not-available.tsx";

function readPlugins() {
  const dir = path.resolve("plugins");
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "plugin.json")))
    .map((d) => JSON.parse(fs.readFileSync(path.join(dir, d.name, "plugin.json"), "utf8")))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * Route files of plugins live in plugins/<id>/; Remix resolves route files from app/. A file
 * written "~/..." is a module of the host (the shared conversation page, app/conversation/).
 */
const pluginFile = (plugin, file) => {
  if (!file) return NOT_AVAILABLE;
  return file.startsWith("~/") ? file.slice(2) : `../plugins/${plugin.id}/${file}`;
};

/** The files of a plugin the host calls: its socket and start modules, channel adapters, widgets' loaders, conversation panel, outgoing reply hook, call-recorded hook, auth settings, list badge, search hits, customer profile and direct webhook handlers (app/plugins/modules.server.ts). */
const moduleFiles = (plugin) => [
  ...new Set([
    ...(plugin.socket ? [plugin.socket] : []),
    ...(plugin.start ? [plugin.start] : []),
    ...(plugin.channels ?? []).map((c) => c.adapter),
    ...(plugin.widgets ?? []).map((w) => w.loader.split("#")[0]),
    ...(plugin.conversationPanel ? [plugin.conversationPanel.split("#")[0]] : []),
    ...(plugin.outgoingReply ? [plugin.outgoingReply.split("#")[0]] : []),
    ...(plugin.callRecorded ? [plugin.callRecorded.split("#")[0]] : []),
    ...(plugin.authSettings ? [plugin.authSettings.split("#")[0]] : []),
    ...(plugin.listBadge ? [plugin.listBadge.split("#")[0]] : []),
    ...(plugin.searchHits ? [plugin.searchHits.split("#")[0]] : []),
    ...(plugin.customerProfile ? [plugin.customerProfile.split("#")[0]] : []),
    ...(plugin.publicRoutes ?? []).flatMap((r) => (r.direct ? [r.direct.split("#")[0]] : [])),
  ]),
];

/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/*"],
  serverModuleFormat: "esm",
  future: { v3_fetcherPersist: true, v3_relativeSplatPath: true, v3_throwAbortReason: true },
  // d3's locale data (plugins/reports/chart-locale.server.ts) is JSON: bundled, as Node would not import it bare;
  // simple-icons: bundled so the server keeps the few channel logos it draws, not all 3,000 (5 MB)
  serverDependenciesToBundle: [/^remix-i18next/, /^d3-(time-)?format\/locale\//, /^simple-icons$/],
  routes(defineRoutes) {
    const plugins = readPlugins();
    return defineRoutes((route) => {
      // The agent shell: logged-out visitors only ever see its index (the login form). A plugin's
      // frame (the ticket list panel) is a pathless layout around all of its pages.
      const frame = plugins.find((p) => p.frame);
      const shellPages = () => {
        route(undefined, "routes/home.tsx", { index: true, id: "home" });
        route("settings", "routes/settings.tsx");
        // accounts (app/accounts/): own account and the admins' settings pages
        route("profile", "accounts/routes/profile.tsx");
        route("settings/sessions", "accounts/routes/settings.sessions.tsx");
        route("settings/users", "accounts/routes/settings.users.tsx");
        route("settings/users/:id", "accounts/routes/settings.user.tsx");
        route("settings/links", "accounts/routes/settings.links.tsx");
        route("settings/statuses", "accounts/routes/settings.statuses.tsx");
        route("settings/security", "accounts/routes/settings.security.tsx");
        route("settings/sso", "accounts/routes/settings.sso.tsx");
        route("settings/audit", "accounts/routes/settings.audit.tsx");
        route("admin/editions", "routes/admin.editions.tsx");
        route("admin/announcement", "routes/admin.announcement.tsx");
        route("agents/online", "routes/agents.online.tsx");
        route("notifications", "conversation/routes/notifications.tsx");
        for (const plugin of plugins) {
          route(undefined, "shell/plugin-gate.tsx", { id: `plugin/${plugin.id}` }, () => {
            plugin.routes.forEach((r, i) => route(r.path, pluginFile(plugin, r.file), { id: `plugin/${plugin.id}/${i}` }));
          });
        }
      };
      // plugins' shell layers (the softphone): pathless layouts around the frame and the pages,
      // mounted as long as the shell is
      const framed = () => {
        if (frame) route(undefined, pluginFile(frame, frame.frame), { id: "frame" }, shellPages);
        else shellPages();
      };
      const layered = plugins
        .filter((p) => p.shellLayer)
        .reduceRight((inner, plugin) => () => route(undefined, pluginFile(plugin, plugin.shellLayer), { id: `layer/${plugin.id}` }, inner), framed);
      route(undefined, "shell/layout.tsx", { id: "shell" }, layered);
      // Plugin modules the host calls (socket handlers, widget loaders): in the build as routes
      // that never match, handed to the host by server.ts (app/plugins/modules.server.ts)
      for (const plugin of plugins) for (const file of moduleFiles(plugin)) route(undefined, pluginFile(plugin, file), { id: `module/${plugin.id}/${file}` });
      for (const plugin of plugins) {
        if (!plugin.publicRoutes?.length) continue;
        route(undefined, "shell/plugin-gate.tsx", { id: `public/${plugin.id}` }, () => {
          plugin.publicRoutes.forEach((r, i) => route(r.path, pluginFile(plugin, r.file), { id: `public/${plugin.id}/${i}` }));
        });
      }
      route("about", "routes/about.tsx");
      route("login", "routes/login.tsx");
      route("contact", "routes/landing.tsx", { id: "contact" });
      // accounts (app/accounts/): pages for signed-out visitors and the account JSON twins
      route("setup", "accounts/routes/setup.tsx");
      route("invite/:token", "accounts/routes/invite.tsx");
      route("signup", "accounts/routes/signup.tsx");
      route("password_reset/:token?", "accounts/routes/password-reset.tsx");
      route("avatar/:key", "accounts/routes/avatar.ts");
      route("sso/:provider/:step?", "accounts/routes/sso.tsx");
      route("api/oauth/verify", "accounts/routes/api.oauth.verify.ts");
      route("api/user/profile/data/info", "accounts/routes/api.profile.ts", { id: "api-profile-info" });
      route("api/user/profile2/info", "accounts/routes/api.profile.ts", { id: "api-profile2-info" });
      route("api/user/profile/:offset", "accounts/routes/api.profile.ts", { id: "api-profile-activity" });
      route("api/online_status/update", "accounts/routes/api.status.ts", { id: "api-status-update" });
      route("api/status/me/get", "accounts/routes/api.status.ts", { id: "api-status-me" });
      route("api/customstatus/get", "accounts/routes/api.status.ts", { id: "api-customstatus" });
      route("api/settings/update_2", "accounts/routes/api.settings-update.ts", { id: "api-settings-update-2" });
      route("api/settings/update", "accounts/routes/api.settings-update.ts", { id: "api-settings-update" });
      route("api/ticket/user/list", "accounts/routes/api.ticket-user-list.ts");
      route("api/session/info", "accounts/routes/api.session-info.ts");
      route("logout", "routes/logout.tsx");
      route("status", "routes/status.tsx");
      route("preferences", "routes/preferences.tsx");
      route("api/auth2", "routes/api.auth2.ts");
      route("api/auth/check", "routes/api.auth.check.ts");
      route("api/user/signout", "routes/api.user.signout.ts");
      // the conversation's JSON twins and files (every conversation kind: app/conversation/)
      route("ticket/info/:token/:id", "conversation/routes/api.info.ts");
      route("ticket/data/:id/:count", "conversation/routes/api.data.ts");
      route("ticket/data/sync", "conversation/routes/api.sync.ts", { id: "api-sync" });
      route("api/ticket/data/sync", "conversation/routes/api.sync.ts", { id: "api-sync-api" });
      route("event/:eventId", "conversation/routes/api.events.ts", { id: "api-events" });
      route("api/event/:eventId", "conversation/routes/api.events.ts", { id: "api-events-api" });
      route("api/ticket/data/check/:ticketId/:lastMessageId", "conversation/routes/api.check.ts");
      route("api/ticket/message/reply", "conversation/routes/api.reply.ts");
      route("api/upload", "conversation/routes/api.reply.ts", { id: "api-upload" });
      route("api/ticket/message/delete", "conversation/routes/api.delete.ts");
      route("api/ticket/priority", "conversation/routes/api.priority.ts");
      route("api/unread", "conversation/routes/api.unread.ts");
      // the notification centre's JSON twins (spec section 7) and the browser push subscription
      route("notification/check", "conversation/routes/api.notifications.ts", { id: "api-notification-check" });
      route("notification/get", "conversation/routes/api.notifications.ts", { id: "api-notification-get" });
      route("api/notification/read", "conversation/routes/api.notifications.ts", { id: "api-notification-read" });
      route("api/notification/remove", "conversation/routes/api.notifications.ts", { id: "api-notification-remove" });
      route("api/fcm/token", "conversation/routes/api.fcm-token.ts");
      route("files/v101/:messageId/:name", "conversation/routes/file.ts");
      route("department/:userId", "routes/api.department.ts");
      route("status/get", "routes/api.status.get.ts");
      route("*", "routes/not-found.tsx");
    });
  },
};
