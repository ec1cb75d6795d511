// GET /api/search/data ?_token, entity, ticket, label, username, message, search_index,
// search_message_index -> {result, post[], message[], postCount, messageCount} (6 per page).
//
// Parameters onto the search model (plugins/tickets/search.server.ts, tokensFromApi):
//   entity   the search text itself: free text plus key:value tokens, as typed in the search box
//   ticket   number:<ticket>   (the ticket number)
//   label    label:<label>     (tickets carrying a label whose name contains it)
//   username from:<username>  (messages sent by a user whose username or name contains it)
//   message  message:<message> (message text)
// search_index / search_message_index are the 0-based pages of post[] and message[]. Each
// message[] hit carries `message` (a plain-text excerpt) and `message_html` (the same excerpt
// escaped, with the matched terms in <mark>).
// Counts stop at 1000 (postCountCapped / messageCountCapped say so). Only conversations the
// token's user may read appear.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { apiAuth, englishText } from "~/api.server";
import type { PanelText } from "~/conversation/panels.server";
import { editionForHost } from "~/models/editions.server";
import { guardPluginRoute, isTrial, viewerOf } from "~/context.server";
import { pageIndex, recordHits, search, tokensFromApi } from "../search.server";

const plain = (label: PanelText) =>
  "text" in label
    ? label.text
    : englishText(label.key, Object.fromEntries(Object.entries(label.values ?? {}).map(([k, v]) => [k, v.startsWith("t:") ? englishText(v.slice(2)) : v])));

export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await apiAuth(request);
  if (!auth) return json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });
  const edition = await editionForHost(request.headers.get("Host"));
  if (!edition.enabled.includes("tickets")) return json({ result: "failed", description: "Not found" }, { status: 404 });
  const params = new URL(request.url).searchParams;
  const tokens = tokensFromApi(params);
  const { ctx } = await guardPluginRoute(request, context);
  const viewer = viewerOf({ ...ctx, user: auth.user });
  const [r, records] = await Promise.all([
    search(auth.user, tokens, {
      postIndex: pageIndex(params.get("search_index")),
      messageIndex: pageIndex(params.get("search_message_index")),
    }),
    viewer ? recordHits(tokens, auth.user, viewer, edition.enabled, isTrial(ctx)) : [],
  ]);
  return json(
    {
      result: "success",
      post: r.post,
      message: r.message,
      contact: r.contact,
      labels: r.labels,
      // contacts, cases and products found, in English like the twins' other texts
      records: records.map((s) => ({
        plugin: s.plugin,
        title: englishText(s.title),
        hits: s.hits.map((h) => ({ title: plain(h.title), detail: h.detail ? plain(h.detail) : "", link: h.href })),
      })),
      postCount: r.postCount,
      messageCount: r.messageCount,
      postCountCapped: r.postCountCapped,
      messageCountCapped: r.messageCountCapped,
      search_index: r.search_index,
      search_message_index: r.search_message_index,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}
