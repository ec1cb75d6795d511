// /contacts/import (admins): upload a CSV, see its dry run (counts and each bad row's reason),
// then Import applies the good rows (plugins/contacts/csv.server.ts). Plain forms: the same
// without JavaScript. /contacts/export.csv downloads the contacts in the same columns.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect, unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { TableScroll } from "~/components/TableScroll";
import { formResult, readFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { CSV_COLUMNS } from "../csv-columns";
import { applyImport, CsvProblem, dryRun, importRecord, recentImports, storeUpload, TooLarge, type RowError } from "../csv.server";
import { requireContactsUser } from "../guard.server";

async function requireAdmin(request: Request, context: unknown) {
  const found = await requireContactsUser(request, context as object);
  if (found.user.type !== "admin") throw redirect("/contacts");
  return found;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await requireAdmin(request, context);
  const done = Number(new URL(request.url).searchParams.get("done"));
  const finished = Number.isSafeInteger(done) && done > 0 ? await importRecord(done) : undefined;
  return json(
    { imports: await recentImports(), finished: finished ?? null, timeZone: ctx.workspace.timeZone },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

type Checked = { view: "checked"; importId: number; fileName: string; rows: number; good: number; bad: number; skipped: number; errors: RowError[] };

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request, context);
  if ((request.headers.get("Content-Type") ?? "").startsWith("multipart/form-data")) {
    let stored: { key: string; name: string } | undefined;
    let tooLarge = false;
    const handler: UploadHandler = async ({ name, filename, data }) => {
      if (name !== "file" || filename === undefined || stored) {
        for await (const chunk of data) void chunk; // other fields are not used
        return undefined;
      }
      try {
        const { key, size } = await storeUpload(data);
        if (size) stored = { key, name: filename };
      } catch (error) {
        if (!(error instanceof TooLarge)) throw error;
        tooLarge = true;
      }
      return undefined;
    };
    await unstable_parseMultipartFormData(request, handler);
    if (tooLarge) return refuse(formResult({ intent: "upload", errors: { file: "plugin_contacts.csv.tooLarge" } }), 413);
    if (!stored) return refuse(formResult({ intent: "upload", errors: { file: "plugin_contacts.csv.noFile" } }));
    try {
      const checked = await dryRun(stored.key, stored.name, user);
      return json<Checked>({ view: "checked", fileName: stored.name, ...checked });
    } catch (error) {
      if (!(error instanceof CsvProblem)) throw error;
      return refuse(formResult({ intent: "upload", errors: { file: error.key }, messageValues: error.values }));
    }
  }
  const form = await request.formData();
  const id = Number(form.get("import"));
  const record = Number.isSafeInteger(id) && id > 0 ? await importRecord(id) : undefined;
  if (!record) return refuse(formResult({ intent: "import", message: "plugin_contacts.csv.importGone" }), 404);
  await applyImport(id);
  return redirect(`/contacts/import?done=${id}`);
}

export const meta = pageMeta("plugin_contacts.csv.title");

const fieldLabel = (field: RowError["field"]) => (field === "row" ? "plugin_contacts.csv.wholeRow" : `plugin_contacts.csv.column.${field}`);

function DryRun({ checked }: { checked: Checked }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  return (
    <section className="card stack" aria-labelledby="csv-dry-run">
      <h2 id="csv-dry-run">{t("plugin_contacts.csv.dryRun", { file: checked.fileName })}</h2>
      <p role="status" data-testid="csv-counts">
        {t("plugin_contacts.csv.counts", { rows: checked.rows, good: checked.good, bad: checked.bad, skipped: checked.skipped })}
      </p>
      {checked.errors.length ? (
        <TableScroll label={t("plugin_contacts.csv.errors")}>
          <table className="payment-table csv-errors">
            <caption>{t("plugin_contacts.csv.errors")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("plugin_contacts.csv.row")}</th>
                <th scope="col">{t("plugin_contacts.csv.field")}</th>
                <th scope="col">{t("plugin_contacts.csv.problem")}</th>
              </tr>
            </thead>
            <tbody>
              {checked.errors.map((e, i) => (
                <tr key={`${e.row}-${e.field}-${i}`} data-testid={`csv-error-${e.row}`}>
                  <th scope="row">{e.row}</th>
                  <td>{t(fieldLabel(e.field))}</td>
                  <td>{t(e.error, e.values)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      {checked.errors.length < checked.bad ? <p className="muted">{t("plugin_contacts.csv.moreErrors", { shown: checked.errors.length })}</p> : null}
      {checked.good ? (
        <Form method="post">
          <input type="hidden" name="import" value={checked.importId} />
          <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
            {t("plugin_contacts.csv.import", { count: checked.good })}
          </button>
        </Form>
      ) : (
        <p className="muted">{t("plugin_contacts.csv.nothingToImport")}</p>
      )}
    </section>
  );
}

export default function ImportPage() {
  const { imports, finished, timeZone } = useLoaderData<typeof loader>();
  const data = useActionData<typeof action>();
  const { t } = useTranslation();
  const navigation = useNavigation();
  const checked = data && "view" in data && data.view === "checked" ? (data as Checked) : undefined;
  const refused = readFormResult(data);
  const fileError = refused?.intent === "upload" ? refused.errors.file : undefined;
  return (
    <section className="stack contacts-import">
      <p>
        <Link to="/contacts">{t("plugin_contacts.contact.back")}</Link>
      </p>
      <h1>{t("plugin_contacts.csv.title")}</h1>
      {finished ? (
        <p className="notice" role="status" data-testid="csv-imported">
          {t("plugin_contacts.csv.imported", { count: finished.imported, file: finished.fileName })}
        </p>
      ) : null}
      {refused?.intent === "import" ? <FormMessage result={refused} /> : null}
      {checked ? <DryRun checked={checked} /> : null}
      <section className="card stack" aria-labelledby="csv-upload">
        <h2 id="csv-upload">{t("plugin_contacts.csv.upload")}</h2>
        <p id="csv-file-help" className="muted">
          {t("plugin_contacts.csv.help", { columns: CSV_COLUMNS.join(", ") })}
        </p>
        <Form method="post" encType="multipart/form-data" className="stack narrow">
          <label htmlFor="csv-file">{t("plugin_contacts.csv.file")}</label>
          <input
            id="csv-file"
            name="file"
            type="file"
            accept=".csv,text/csv"
            aria-invalid={!!fileError}
            aria-describedby={["csv-file-help", fileError ? "csv-file-error" : ""].filter(Boolean).join(" ")}
          />
          {fileError ? (
            <p id="csv-file-error" className="field-error">
              {t(fileError, refused?.messageValues)}
            </p>
          ) : null}
          <div>
            <button type="submit" className="button" disabled={navigation.state === "submitting"}>
              {t("plugin_contacts.csv.check")}
            </button>
          </div>
        </Form>
        <p>
          <a href="/contacts/export.csv" download>
            {t("plugin_contacts.csv.export")}
          </a>
        </p>
      </section>
      {imports.length ? (
        <section className="stack" aria-labelledby="csv-recent">
          <h2 id="csv-recent">{t("plugin_contacts.csv.recent")}</h2>
          <TableScroll label={t("plugin_contacts.csv.recent")}>
            <table className="payment-table">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_contacts.csv.file")}</th>
                  <th scope="col">{t("plugin_contacts.csv.when")}</th>
                  <th scope="col">{t("plugin_contacts.csv.state")}</th>
                  <th scope="col">{t("plugin_contacts.csv.importedCol")}</th>
                </tr>
              </thead>
              <tbody>
                {imports.map((i) => (
                  <tr key={i.id}>
                    <th scope="row">{i.fileName}</th>
                    <td>
                      <time dateTime={new Date(i.createdAt).toISOString()}>{`${formatDate(i.createdAt, timeZone)} ${formatTime(i.createdAt, timeZone)}`}</time>
                    </td>
                    <td>{t(`plugin_contacts.csv.stateName.${i.state}`)}</td>
                    <td>{`${i.imported} / ${i.good}`}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        </section>
      ) : null}
    </section>
  );
}
