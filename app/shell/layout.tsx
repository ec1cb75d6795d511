// The agent shell: left navigation, list panel and detail area. Logged-out visitors only reach
// its index route, which renders the login form without the shell around it.
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, NavLink, Outlet, useLoaderData, useLocation, useMatches, type ShouldRevalidateFunction } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useHydrated } from "~/hooks";
import { requestContext, isTrial, viewerOf } from "~/context.server";
import { buildNav, parseVisibility } from "~/nav";
import { translatorFor } from "~/i18n.server";
import { pluginForPath, plugins } from "~/plugins/registry.server";
import { Icon } from "~/components/Icon";
import { DetailColumn, type ShellChrome } from "./DetailColumn";
import { useShellView } from "./view";
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
      debug: user.type === "admin" || workspace.debugShortcuts,
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

/** The tab's title; a page of the menu is named by its menu label first (other pages name themselves: app/meta.ts). */
export const meta: MetaFunction<typeof loader> = ({ data, location }) => {
  if (!data?.signedIn) return [{ title: data?.productTitle ?? "OmniDesk" }];
  const page = data.nav.find((item) => item.path === location.pathname);
  return [{ title: page ? `${page.label} - ${data.tabTitle}` : data.tabTitle }];
};

export default function Shell() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const framed = useMatches().some((m) => m.id === "frame");
  const view = useShellView();
  const [menuOpen, setMenuOpen] = useState(false);
  const hydrated = useHydrated();
  if (!data.signedIn) return <Outlet />;
  const here = location.pathname + location.search;
  const shown = data.editMenu ? data.nav : data.nav.filter((item) => !item.hidden);
  return (
    <div className={`shell shell-${view}${data.navMinimised ? " nav-min" : ""}`}>
      <a className="skip-link" href="#detail">
        {t("shell.skip")}
      </a>
      {/* id "menu": on a phone the menu button is a link to #menu, shown by :target without JavaScript */}
      <aside id="menu" className={`left-nav${menuOpen || data.editMenu ? " open" : ""}${hydrated ? " js" : ""}`} aria-label={t("shell.navigation")}>
        <MenuButton open={menuOpen || data.editMenu} setOpen={setMenuOpen} hydrated={hydrated} />
        <div className="nav-body" id="menu-body">
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
        </div>
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

/**
 * The phone's menu button (hidden by CSS on wider screens). Without JavaScript it is a link to
 * #menu (and, once open, a link to # that closes it); with JavaScript a button with aria-expanded
 * that Escape, a click elsewhere and any navigation close.
 */
function MenuButton({ open, setOpen, hydrated }: { open: boolean; setOpen: (open: boolean) => void; hydrated: boolean }) {
  const { t } = useTranslation();
  const location = useLocation();
  const button = useRef<HTMLButtonElement>(null);
  // a tap on the #menu link before the script loaded stays open; any later navigation closes it
  // (with JavaScript, CSS ignores :target, which a client-side navigation would not clear)
  useEffect(() => setOpen(location.hash === "#menu"), [location.key, location.hash, setOpen]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    const onClick = (e: MouseEvent) => {
      if (!(e.target as Element).closest?.("#menu")) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("click", onClick);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("click", onClick);
    };
  }, [open, setOpen]);
  if (!hydrated)
    return (
      <>
        <a href="#menu" className="menu-button menu-open-link">
          <Icon name="menu" />
          <span className="sr-only">{t("shell.menu")}</span>
        </a>
        <a href="#" className="menu-button menu-close-link">
          <Icon name="close" />
          <span className="sr-only">{t("shell.closeMenu")}</span>
        </a>
      </>
    );
  return (
    <button ref={button} type="button" className="menu-button" aria-expanded={open} aria-controls="menu-body" onClick={() => setOpen(!open)}>
      <Icon name={open ? "close" : "menu"} />
      <span className="sr-only">{t("shell.menu")}</span>
    </button>
  );
}
