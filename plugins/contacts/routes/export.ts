// GET /contacts/export.csv (admins): every contact in the import's columns, streamed as it is read
// (csv-stringify over pages of 1,000), so a million contacts take no more memory than a page.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { createReadableStreamFromReadable, redirect } from "@remix-run/node";
import { exportCsv } from "../csv.server";
import { requireContactsUser } from "../guard.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user } = await requireContactsUser(request, context);
  if (user.type !== "admin") throw redirect("/contacts");
  return new Response(createReadableStreamFromReadable(exportCsv()), {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": 'attachment; filename="contacts.csv"',
      "Cache-Control": "private, no-store",
    },
  });
}
