// /contacts/{uid}/merge: merge another contact into this one. Search for it (a GET form), see
// what would move (?with={other uid}: its emails, phones, channel ids and conversations), confirm
// with a plain post; the merge is one transaction and can be undone from the contact's page for a
// day. Merging a contact into itself, or one that was merged away, is refused with the reason.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { formResult, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { contactByUid, listContacts, SEARCH_MAX } from "../contacts.server";
import { requireContactsUser } from "../guard.server";
import { mergeContacts, mergePreview } from "../merge.server";

const UID = /^[A-Za-z0-9_-]{1,64}$/;

async function standing(uid: string | undefined) {
  const contact = uid && UID.test(uid) ? await contactByUid(uid) : undefined;
  if (!contact) throw new Response("Not Found", { status: 404 });
  return contact;
}

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requireContactsUser(request, context);
  const contact = await standing(params.uid);
  if (contact.mergedInto !== null) throw redirect(`/contacts/${contact.uid}`);
  const url = new URL(request.url);
  const q = (url.searchParams.get("q") ?? "").trim().slice(0, SEARCH_MAX);
  const other = url.searchParams.get("with") ?? "";
  const preview = other ? await mergePreview(contact.uid, UID.test(other) ? other : "-") : null;
  const found = q ? (await listContacts({ q, size: 20 })).contacts.filter((c) => c.uid !== contact.uid) : [];
  return json({ contact: { uid: contact.uid, name: contact.name }, q, found, preview }, { headers: { "Cache-Control": "private, no-store" } });
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { user } = await requireContactsUser(request, context);
  const contact = await standing(params.uid);
  const form = await request.formData();
  const from = String(form.get("from") ?? "");
  const merged = await mergeContacts(contact.uid, UID.test(from) ? from : "-", user);
  if (!merged.ok) return refuse(formResult({ intent: "merge", message: `plugin_contacts.merge.refused.${merged.refusal}` }), 409);
  return redirect(`/contacts/${contact.uid}?merged=1#contact-merges`);
}

export const meta = pageMeta("plugin_contacts.merge.pageTitle");

export default function MergePage() {
  const { contact, q, found, preview } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult("merge");
  const navigation = useNavigation();
  const name = (n: string) => n || t("plugin_contacts.noName");
  return (
    <section className="stack contact-merge">
      <p>
        <Link to={`/contacts/${contact.uid}`}>{t("plugin_contacts.merge.back", { name: name(contact.name) })}</Link>
      </p>
      <h1>{t("plugin_contacts.merge.heading", { name: name(contact.name) })}</h1>
      <p className="muted">{t("plugin_contacts.merge.explain")}</p>
      <Form method="get" role="search" aria-label={t("plugin_contacts.merge.search")} className="row">
        <label htmlFor="merge-q">{t("plugin_contacts.merge.search")}</label>
        <input id="merge-q" name="q" type="search" defaultValue={q} maxLength={SEARCH_MAX} />
        <button type="submit" className="button">
          {t("plugin_contacts.list.searchButton")}
        </button>
      </Form>
      {q ? (
        <section className="stack" aria-labelledby="merge-found">
          <h2 id="merge-found">{t("plugin_contacts.merge.found")}</h2>
          {found.length ? (
            <ul>
              {found.map((c) => (
                <li key={c.uid}>
                  {`${name(c.name)}${c.email ? ` · ${c.email}` : ""}${c.phone ? ` · ${c.phone}` : ""} · `}
                  <Link to={`?${new URLSearchParams({ with: c.uid })}`} aria-label={t("plugin_contacts.merge.previewNamed", { name: name(c.name) })}>
                    {t("plugin_contacts.merge.preview")}
                  </Link>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted" role="status">
              {t("plugin_contacts.list.noneFound")}
            </p>
          )}
        </section>
      ) : null}
      {preview ? (
        <section className="card stack" aria-labelledby="merge-preview">
          <h2 id="merge-preview">{t("plugin_contacts.merge.previewTitle")}</h2>
          <FormMessage result={failed} />
          {preview.ok ? (
            <>
              <p>{t("plugin_contacts.merge.moves", { from: name(preview.from.name), into: name(preview.into.name) })}</p>
              {preview.identities.length ? (
                <ul>
                  {preview.identities.map((i) => (
                    <li key={`${i.kind} ${i.value}`}>{`${t(`plugin_contacts.merge.kind.${i.kind}`)}: ${i.value}`}</li>
                  ))}
                </ul>
              ) : (
                <p className="muted">{t("plugin_contacts.merge.noIdentities")}</p>
              )}
              <p>{t("plugin_contacts.merge.conversations", { count: preview.conversations })}</p>
              <p className="muted">{t("plugin_contacts.merge.undoHint")}</p>
              <Form method="post">
                <input type="hidden" name="from" value={preview.from.uid} />
                <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
                  {t("plugin_contacts.merge.confirm")}
                </button>
              </Form>
            </>
          ) : (
            <p className="form-error" role="alert">
              {t(`plugin_contacts.merge.refused.${preview.refusal}`)}
            </p>
          )}
        </section>
      ) : failed ? (
        <FormMessage result={failed} />
      ) : null}
    </section>
  );
}
