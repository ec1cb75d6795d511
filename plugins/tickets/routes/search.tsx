// /search: the global search page (spec sections 5 and 9). A GET form and two paged hit lists,
// fully usable without JavaScript; the top-bar dialog (SearchLauncher) loads this loader too.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute, isTrial, viewerOf } from "~/context.server";
import { MAX_QUERY_LENGTH, pageIndex, parseSearch, recordHits, search } from "../search.server";
import { SearchForm, SearchResults, type SearchPageData } from "../components/SearchLauncher";
import { pageMeta } from "~/meta";

export async function loader({ request, context }: LoaderFunctionArgs) {
  // Fetchers (the search dialog) call this loader without the plugin gate above it: guard here too.
  const { ctx } = await guardPluginRoute(request, context);
  const params = new URL(request.url).searchParams;
  const q = (params.get("q") ?? "").slice(0, MAX_QUERY_LENGTH);
  const tokens = parseSearch(q);
  const viewer = viewerOf(ctx);
  const [result, records] = tokens.length
    ? await Promise.all([
        search(ctx.user!, tokens, { postIndex: pageIndex(params.get("search_index")), messageIndex: pageIndex(params.get("search_message_index")) }),
        viewer ? recordHits(tokens, ctx.user!, viewer, ctx.edition.enabled, isTrial(ctx)) : [],
      ])
    : [null, []];
  // the contacts plugin lists the contacts themselves (/contacts/{uid}); the conversations' contact emails are then not listed twice
  if (result && ctx.edition.enabled.includes("contacts")) result.contact = [];
  const data: SearchPageData = { q, result, records };
  return json(data, { headers: { "Cache-Control": "private, no-store" } });
}

export const meta = pageMeta("search.title");

export default function SearchPage() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const navigation = useNavigation();
  const loading = navigation.state !== "idle" && navigation.location?.pathname === "/search";
  return (
    <section className="search-page stack">
      <h1>{t("search.title")}</h1>
      <SearchForm q={data.q} loading={loading} />
      <div aria-busy={loading}>{data.result ? <SearchResults q={data.q} result={data.result} records={data.records} /> : null}</div>
    </section>
  );
}
