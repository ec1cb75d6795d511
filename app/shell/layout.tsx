// The agent shell: left navigation, list panel and detail area. Logged-out visitors only reach
// its index route, which renders the login form without the shell around it.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, NavLink, Outlet, useLoaderData, useLocation, useMatches, type ShouldRevalidateFunction } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext, isTrial, viewerOf } from "~/context.server";
import { buildNav, parseVisibility } from "~/nav";
import { translatorFor } from "~/i18n.server";
import { pluginForPath, plugins } from "~/plugins/registry.server";
import { Icon } from "~/components/Icon";
import { DetailColumn, type ShellChrome } from "./DetailColumn";
import { unreadCounts } from "~/conversation/unread.server";
import { markViewed } from "~/conversation/model.server";
import type { Workspace } from "~/models/settings.server";
import { listNotifications } from "~/conversation/notifications.server";
import { parseAnnouncement } from "~/models/announcement.server";
import { announcementSeenCookie } from "~/cookies.server";
import { installIsEmpty } from "~/accounts/setup.server";
import { listCustomStatuses } from "~/accounts/custom-statuses.server";

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
  const isPublic = pluginForPath(url.pathname)?.isPublic;
  // an install with no users yet has only its first-run page (the login form too goes there)
  if (!ctx.user && !isPublic && (await installIsEmpty())) throw redirect("/setup");
  // public pages under the shell's paths (a live chat visitor's /livechat/{token}) show bare
  if (!ctx.user || !viewer || isPublic) return json({ signedIn: false as const, productTitle: ctx.edition.title });
  const nav = buildNav({
    plugins: plugins(),
    enabledPlugins: ctx.edition.enabled,
    hiddenByDefault: ctx.edition.hiddenByDefault,
    visibility: parseVisibility(ctx.menuVisibility),
    viewer,
    trial: isTrial(ctx),
    language: ctx.language,
    translate: translatorFor(ctx.language),
  });
  const { workspace, user } = ctx;
  // the open conversation counts as read before the unread counts are taken
  await markViewed(user, url.pathname, context);
  const [counts, notifications, customStatuses] = await Promise.all([unreadCounts(user.id), listNotifications(user.id), listCustomStatuses()]);
  const unread = counts.ticket + counts.livechat + counts.chat;
  return json({
    signedIn: true as const,
    productTitle: ctx.edition.title,
    tabTitle: `${unread ? `(${unread}) ` : ""}${workspace.adminName} - ${ctx.edition.title}`,
    chrome: {
      user: {
        name: user.name,
        username: user.username,
        type: user.type,
        photo: user.photo,
        secondStatus: user.secondStatus,
        statusReason: user.statusReason,
        statusTime: user.statusTime,
      },
      statusError: STATUS_ERRORS.find((e) => e === url.searchParams.get("status_error")) ?? null,
      customStatuses: customStatuses.map((s) => ({ name: s.name, needsReason: s.needsReason })),
      popupOnCall: workspace.popupOnCall,
      notifications,
      announcement: await unseenAnnouncement(request, workspace),
      expiry: workspace.expiresAt !== null && workspace.expiresAt < Date.now() ? { trial: workspace.accountType === 0 } : null,
      now: Date.now(),
    } satisfies ShellChrome,
    nav,
    editMenu: url.searchParams.has("edit_menu"),
    navMinimised: ctx.navMinimised,
  });
}

/** The list and unread counts follow every navigation, not only changes of the query. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl, defaultShouldRevalidate }) =>
  defaultShouldRevalidate || currentUrl.pathname !== nextUrl.pathname;

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data && data.signedIn ? data.tabTitle : (data?.productTitle ?? "OmniDesk") }];

export default function Shell() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const framed = useMatches().some((m) => m.id === "frame");
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
      {/* a plugin's frame (the ticket list panel) renders the detail column itself */}
      {framed ? (
        <Outlet />
      ) : (
        <>
          <section className="list-panel" aria-label={t("shell.list")} />
          <DetailColumn chrome={data.chrome}>
            <Outlet />
          </DetailColumn>
        </>
      )}
    </div>
  );
}
