// GET /api/contacts/list ?_token, keyword (or searchBar), page (from 1), pagination (page size, at
// most 100) (spec section 7): contacts newest first, searched by name, email or phone as on
// /contacts. -> {result: "success", data: [{id, uid, name, salutation, email, phone, created_at}], page, more}
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput } from "~/api.server";
import { contactJson, listContacts, LIST_PAGE, LIST_PAGE_MAX, SEARCH_MAX } from "../contacts.server";
import { requireContactsApiUser } from "../guard.server";

const bad = "Please check the input.";
const input = z.object({
  keyword: z.string().trim().max(SEARCH_MAX, `The search is longer than ${SEARCH_MAX} characters.`).optional(),
  searchBar: z.string().trim().max(SEARCH_MAX, `The search is longer than ${SEARCH_MAX} characters.`).optional(),
  page: z.coerce.number().int(bad).min(1, bad).max(1_000_000, bad).default(1),
  pagination: z.coerce.number().int(bad).min(1, bad).max(LIST_PAGE_MAX, `At most ${LIST_PAGE_MAX} contacts a page.`).default(LIST_PAGE),
});

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireContactsApiUser(request, context);
  const q = apiInput(request, input);
  const found = await listContacts({ q: q.keyword ?? q.searchBar ?? "", page: q.page, size: q.pagination });
  return json(
    {
      result: "success",
      data: found.contacts.map(contactJson),
      page: found.page,
      more: found.more,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}
