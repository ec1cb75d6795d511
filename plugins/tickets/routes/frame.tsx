// The tickets plugin's frame around every page of the shell: the list panel (tickets, live
// chats, workspace chats) beside the detail column, and the search launcher in its top bar.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Outlet, useLoaderData, type ShouldRevalidateFunction } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext, isTrial, viewerOf } from "~/context.server";
import { menuItemAllows, pluginForPath } from "~/plugins/registry.server";
import { markViewed } from "~/conversation/model.server";
import { DetailColumn, useShellChrome } from "~/shell/DetailColumn";
import { useShellView } from "~/shell/view";
import { retryingClientLoader } from "~/lazy-load";
import { loadListPanel } from "../list-panel.server";
import { listBadges } from "~/conversation/list-badges.server";
import { listPresets } from "../filter-presets.server";
import { ListPanel } from "../components/ListPanel";
import { SearchLauncher } from "../components/SearchLauncher";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  const viewer = viewerOf(ctx);
  const url = new URL(request.url);
  const { user, edition, workspace } = ctx;
  if (!user || !viewer || pluginForPath(url.pathname)?.isPublic) return json(null);
  if (!edition.enabled.includes("tickets") || isTrial(ctx)) return json(null);
  // loaders run in parallel: the open conversation is marked read (as the shell does for its
  // counts) before the list shows it
  await markViewed(user, url.pathname, context);
  const [list, presets] = await Promise.all([loadListPanel(user, url, workspace.timeZone), listPresets(user, workspace.timeZone)]);
  // plugins' marks on the rows (the SLA's time left), for the whole page at once
  const items = [...(list.list?.items ?? []), ...(list.groups ?? []).flatMap((g) => g.items)];
  const badges = await listBadges(
    items.map((i) => i.id),
    edition.enabled,
  );
  for (const item of items) if (badges[item.id]) item.badges = badges[item.id];
  return json({
    list,
    presets,
    tabs: {
      // the live chat tab shows only on the main product hosts (spec section 6)
      livechat: edition.enabled.includes("livechat"),
      chat: edition.enabled.includes("chat") && menuItemAllows("chat", "chat", viewer),
      sla: edition.enabled.includes("sla"),
    },
    now: Date.now(),
  });
}

/** The list's pages and groups ("Show More") retry a failed load (spec section 2). */
export const clientLoader = retryingClientLoader;

/** The list follows every navigation, not only changes of the query (as the shell does). */
export const shouldRevalidate: ShouldRevalidateFunction = ({ currentUrl, nextUrl, defaultShouldRevalidate }) =>
  defaultShouldRevalidate || currentUrl.pathname !== nextUrl.pathname;

export default function TicketsFrame() {
  const data = useLoaderData<typeof loader>();
  const chrome = useShellChrome();
  const { t } = useTranslation();
  const view = useShellView();
  if (!chrome) return <Outlet />;
  if (view === "list-only" && data)
    return (
      <DetailColumn chrome={chrome} search={<SearchLauncher />}>
        <Outlet />
        <ListPanel data={data.list} presets={data.presets} now={data.now} tabs={data.tabs} />
      </DetailColumn>
    );
  return (
    <>
      {data ? (
        <ListPanel data={data.list} presets={data.presets} now={data.now} tabs={data.tabs} />
      ) : (
        <section className="list-panel" aria-label={t("shell.list")} />
      )}
      <DetailColumn chrome={chrome} search={data ? <SearchLauncher /> : null}>
        <Outlet />
      </DetailColumn>
    </>
  );
}
