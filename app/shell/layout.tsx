// The agent shell: left navigation, list panel and detail area. Logged-out visitors only reach
// its index route, which renders the login form without the shell around it.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Form, Link, NavLink, Outlet, useLoaderData, useLocation, type ShouldRevalidateFunction } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext, isTrial, viewerOf } from "~/context.server";
import { buildNav, parseVisibility } from "~/nav";
import { pluginForPath, plugins } from "~/plugins/registry.server";
import { UserMenu } from "~/components/UserMenu";
import { StatusBanner } from "~/components/StatusBanner";
import { ExpiryBanner } from "~/components/ExpiryBanner";
import { Icon } from "~/components/Icon";
import { ListPanel } from "@plugins/tickets/components/ListPanel";
import { SearchLauncher } from "@plugins/tickets/components/SearchLauncher";
import { Realtime } from "~/components/Realtime";
import { OnlineAgents } from "~/components/OnlineAgents";
import { loadListPanel } from "@plugins/tickets/list-panel.server";
import { listPresets, type Preset } from "@plugins/tickets/filter-presets.server";
import { unreadCounts } from "~/conversation/unread.server";
import { markViewed } from "~/conversation/model.server";
import { canSee } from "~/permissions";
import type { Workspace } from "~/models/settings.server";
import { listNotifications } from "~/conversation/notifications.server";
import { NotificationBell } from "~/conversation/components/Notifications";
import { parseAnnouncement } from "~/models/announcement.server";
import { announcementSeenCookie } from "~/cookies.server";
import { AnnouncementBanner } from "~/components/AnnouncementBanner";

const STATUS_ERRORS = ["invalid", "same", "reasonRequired"] as const;

/** The current announcement, unless this browser dismissed it. */
async function unseenAnnouncement(request: Request, workspace: Workspace) {
  const announcement = parseAnnouncement(workspace.announcement);
  const seen = announcement ? await announcementSeenCookie().parse(request.headers.get("Cookie")) : null;
  return announcement && String(announcement.at) !== String(seen) ? announcement : null;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  const viewer = viewerOf(ctx);
  const url = new URL(request.url);
  // public pages under the shell's paths (a live chat visitor's /livechat/{token}) show bare
  if (!ctx.user || !viewer || pluginForPath(url.pathname)?.isPublic) return json({ signedIn: false as const, productTitle: ctx.edition.title });
  const nav = buildNav({
    plugins: plugins(),
    enabledPlugins: ctx.edition.enabled,
    hiddenByDefault: ctx.edition.hiddenByDefault,
    visibility: parseVisibility(ctx.menuVisibility),
    viewer,
    trial: isTrial(ctx),
    language: ctx.language,
  });
  const { workspace, user } = ctx;
  const { timeZone } = workspace;
  // loaders run in parallel: mark the open conversation read here, before the list and counts
  await markViewed(user, url.pathname);
  const tickets = ctx.edition.enabled.includes("tickets") && !isTrial(ctx);
  const [list, presets, counts, notifications] = await Promise.all([
    tickets ? loadListPanel(user, url, timeZone) : null,
    tickets ? listPresets(user, timeZone) : Promise.resolve<Preset[]>([]),
    unreadCounts(user.id),
    listNotifications(user.id),
  ]);
  const unread = counts.ticket + counts.livechat + counts.chat;
  return json({
    signedIn: true as const,
    productTitle: ctx.edition.title,
    tabTitle: `${unread ? `(${unread}) ` : ""}${workspace.adminName} - ${ctx.edition.title}`,
    user: {
      name: user.name,
      username: user.username,
      type: user.type,
      photo: user.photo,
      secondStatus: user.secondStatus,
      statusReason: user.statusReason,
      statusTime: user.statusTime,
    },
    nav,
    list,
    presets,
    listTabs: {
      // the live chat tab shows only on the main product hosts (spec section 6)
      livechat: ctx.edition.enabled.includes("livechat"),
      chat: ctx.edition.enabled.includes("chat") && canSee("chat", viewer),
    },
    editMenu: url.searchParams.has("edit_menu"),
    statusError: STATUS_ERRORS.find((e) => e === url.searchParams.get("status_error")) ?? null,
    navMinimised: ctx.navMinimised,
    popupOnCall: workspace.popupOnCall,
    notifications,
    announcement: await unseenAnnouncement(request, workspace),
    expiry:
      workspace.expiresAt !== null && workspace.expiresAt < Date.now()
        ? { trial: workspace.accountType === 0 }
        : null,
    now: Date.now(),
  });
}

/** The list and unread counts follow every navigation, not only changes of the query. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl, defaultShouldRevalidate }) =>
  defaultShouldRevalidate || currentUrl.pathname !== nextUrl.pathname;

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data && data.signedIn ? data.tabTitle : data?.productTitle ?? "OmniDesk" },
];

export default function Shell() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  if (!data.signedIn) return <Outlet />;
  const here = location.pathname + location.search;
  const shown = data.editMenu ? data.nav : data.nav.filter((item) => !item.hidden);
  return (
    <div className={data.navMinimised ? "shell nav-min" : "shell"}>
      <a className="skip-link" href="#detail">
        {t("shell.skip")}
      </a>
      <aside className="left-nav" aria-label={t("shell.navigation")}>
        <div className="brand">
          <Link to="/" title={data.productTitle}>
            <Icon name="logo" />
            <span className="label">{data.productTitle}</span>
          </Link>
        </div>
        <Form method="post" action="/preferences" className="nav-toggle">
          <input type="hidden" name="intent" value="nav_min" />
          <input type="hidden" name="value" value={data.navMinimised ? "0" : "1"} />
          <input type="hidden" name="redirectTo" value={here} />
          <button type="submit" className="icon-button" aria-label={data.navMinimised ? t("shell.expand") : t("shell.minimise")}>
            <Icon name={data.navMinimised ? "expand" : "collapse"} />
          </button>
        </Form>
        {data.editMenu ? (
          <Form method="post" action="/preferences" className="menu-edit">
            <input type="hidden" name="intent" value="menu_visibility" />
            <input type="hidden" name="redirectTo" value={location.pathname} />
            <fieldset>
              <legend>{t("shell.editMenu")}</legend>
              {shown.map((item) => (
                <label key={item.id}>
                  <input type="checkbox" name="visible" value={item.id} defaultChecked={!item.hidden} />
                  <input type="hidden" name="listed" value={item.id} />
                  {item.label}
                </label>
              ))}
            </fieldset>
            <button type="submit" className="button primary">
              {t("common.save")}
            </button>
          </Form>
        ) : (
          <nav>
            <ul>
              {shown.map((item) => (
                <li key={item.id}>
                  <NavLink to={item.path} title={item.label} data-menu-item={item.id}>
                    <Icon name={item.icon} />
                    <span className="label">{item.label}</span>
                  </NavLink>
                </li>
              ))}
            </ul>
            <Link to="?edit_menu=1" className="edit-menu-link">
              <Icon name="edit" />
              <span className="label">{t("shell.editMenu")}</span>
            </Link>
          </nav>
        )}
      </aside>
      {data.list ? (
        <ListPanel data={data.list} presets={data.presets} now={data.now} tabs={data.listTabs} />
      ) : (
        <section className="list-panel" aria-label={t("shell.list")} />
      )}
      <div className="detail-column">
        <header className="top-bar">
          {data.list ? <SearchLauncher /> : null}
          <NotificationBell data={data.notifications} now={data.now} />
          <OnlineAgents />
          <UserMenu user={data.user} statusError={data.statusError ? `status.${data.statusError}` : null} />
        </header>
        <Realtime viewer={{ type: data.user.type, popupOnCall: data.popupOnCall }} />
        {data.expiry ? <ExpiryBanner trial={data.expiry.trial} /> : null}
        {data.announcement ? <AnnouncementBanner announcement={data.announcement} /> : null}
        {data.user.secondStatus ? (
          <StatusBanner status={data.user.secondStatus} since={data.user.statusTime} now={data.now} />
        ) : null}
        <main id="detail" className="detail">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
