// GET /api/contacts/custom ?_token, id (the custom contact tab), index (its page, from 0) (spec
// section 7): the tab's slice of the contacts, in the order they were added, from its start_index,
// data_per_page a page, as on /contacts?tab={id}&index={index}.
// -> {result: "success", total, data: [{id, uid, name, salutation, email, phone, created_at}],
//     index, pages, tab: {id, name, start_index, data_per_page}}
// total counts the tab's contacts (all pages). A page past the last is 404 with how many there are.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput } from "~/api.server";
import { contactJson } from "../contacts.server";
import { requireContactsApiUser } from "../guard.server";
import { contactTab, TAB_INDEX_MAX, tabPage } from "../tabs.server";

const headers = { "Cache-Control": "private, no-store" };
const input = z.object({
  id: z.string({ required_error: "Give the id of a custom contact tab." }).regex(/^\d{1,9}$/, "The id must be a whole number."),
  index: z
    .string()
    .regex(/^\d{1,7}$/, "The index must be a whole number from 0.")
    .transform(Number)
    .refine((n) => n <= TAB_INDEX_MAX, "The index must be a whole number from 0.")
    .default("0"),
});

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireContactsApiUser(request, context);
  const q = apiInput(request, input);
  const tab = await contactTab(Number(q.id));
  if (!tab) return json({ result: "failed", description: "No such contact tab." }, { status: 404, headers });
  const { pastEnd, ...page } = await tabPage(tab, q.index);
  if (pastEnd)
    return json(
      {
        result: "failed",
        description: `This tab has ${page.pages} page${page.pages === 1 ? "" : "s"}: the index goes from 0 to ${page.pages - 1}.`,
        total: page.total,
        pages: page.pages,
      },
      { status: 404, headers },
    );
  return json(
    {
      result: "success",
      total: page.total,
      data: page.contacts.map(contactJson),
      index: page.index,
      pages: page.pages,
      tab: { id: tab.id, name: tab.name, start_index: tab.startIndex, data_per_page: tab.dataPerPage },
    },
    { headers },
  );
}
