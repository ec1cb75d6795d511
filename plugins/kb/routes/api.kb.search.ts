// GET /api/kb/search?q=&type=&lang=&page= (JSON twin of /kb): the articles an agent or admin may
// see (internal ones included), best match first; `_token` or the session cookie.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput } from "~/api.server";
import { listArticles } from "../kb.server";
import { requireKbApiUser } from "../guard.server";
import { KB_LANGS, KB_TYPES, publicPath, QUERY_MAX } from "../limits";

const input = z.object({
  q: z.string().max(QUERY_MAX).default(""),
  type: z.enum(KB_TYPES).optional(),
  lang: z.enum(KB_LANGS).optional(),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
});

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireKbApiUser(request, context);
  const q = apiInput(request, input);
  const list = await listArticles({ ...q, includeInternal: true });
  return json(
    {
      result: "success",
      total: list.total,
      page: list.page,
      pages: list.pages,
      articles: list.articles.map((a) => ({ ...a, url: a.visibility === "public" ? publicPath(a) : null })),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}
