// /contacts/{uid}: one contact. Its identity (salutation, name, ID type and number checked per type,
// notes) in a plain <form method="post">: a wrong number is refused with a message tied to the
// field and everything typed kept, also without JavaScript; with JavaScript the number's field is
// hidden for None and Refuses to provide (without, a number given with them is not kept). Then its emails, phones and channel
// ids, and its conversations across channels that the viewer may read, newest first, 5 a page.
import type { ActionFunctionArgs, LoaderFunctionArgs, SerializeFrom } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { formResult, formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { FormMessage } from "~/components/FormMessage";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { contactActivity, contactByUid, uidByIdentity, IDENTITY_FIELDS, NAME_MAX, NOTES_MAX, SALUTATION_MAX, updateIdentity } from "../contacts.server";
import { ID_TYPES, NO_NUMBER } from "../identity";
import { requireContactsUser } from "../guard.server";
import { duplicatesOf } from "../duplicates.server";
import { mergedTarget, undoableMerges, undoMerge } from "../merge.server";
import { staffProfile, visitorProfile } from "../people.server";
import { StaffPage, VisitorPage } from "../components/People";
import { customFields, customValues, inputName, saveCustomValues, VALUE_MAX } from "../custom-fields.server";
import { ChannelName } from "~/components/ChannelName";

const uidOf = (params: Record<string, string | undefined>) => {
  const uid = params["*"] ?? "";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(uid)) throw new Response("Not Found", { status: 404 });
  return uid;
};

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { ctx, user } = await requireContactsUser(request, context);
  const raw = params["*"] ?? "";
  const headers = { "Cache-Control": "private, no-store" };
  const timeZone = ctx.workspace.timeZone;
  const contact = await contactByUid(raw);
  if (!contact) {
    // the profile card's 'View Profile': a team member or bot by username, a live chat's visitor
    const staff = await staffProfile(user, raw);
    if (staff) return json({ view: "staff" as const, staff, timeZone }, { headers });
    const visitor = await visitorProfile(user, raw);
    if (visitor) return json({ view: "visitor" as const, visitor, timeZone }, { headers });
    // a customer named by email or phone
    const found = raw.length <= 254 ? await uidByIdentity(raw) : undefined;
    if (found) throw redirect(`/contacts/${found}`);
    throw new Response("Not Found", { status: 404 });
  }
  if (contact.mergedInto !== null) {
    const target = await mergedTarget(contact.mergedInto);
    if (target) throw redirect(`/contacts/${target}`);
    throw new Response("Not Found", { status: 404 });
  }
  const url = new URL(request.url);
  const page = Number(url.searchParams.get("page") ?? 1);
  const [activity, duplicates, merges, fields, fieldValues] = [
    await contactActivity(user, contact.id, Number.isSafeInteger(page) ? page : 1),
    await duplicatesOf(contact),
    await undoableMerges(contact.id),
    await customFields(),
    await customValues(contact.id),
  ];
  return json(
    {
      view: "contact" as const,
      contact,
      activity,
      duplicates,
      merges,
      fields,
      fieldValues,
      isAdmin: user.type === "admin",
      saved: url.searchParams.has("saved"),
      fieldsSaved: url.searchParams.has("fieldsSaved"),
      merged: url.searchParams.has("merged"),
      undone: url.searchParams.has("undone"),
      timeZone,
    },
    { headers },
  );
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { user } = await requireContactsUser(request, context);
  const uid = uidOf(params);
  const form = await request.formData();
  if (form.get("intent") === "undo") {
    const mergeId = Number(form.get("merge"));
    const undone = Number.isSafeInteger(mergeId) ? await undoMerge(mergeId, user) : { ok: false as const, refusal: "notFound" as const };
    if (!undone.ok) return refuse(formResult({ intent: "undo", message: `plugin_contacts.merge.undoRefused.${undone.refusal}` }), 409);
    return redirect(`/contacts/${undone.intoUid}?undone=1#contact-merges`);
  }
  if (form.get("intent") === "customFields") {
    const contact = await contactByUid(uid);
    if (!contact || contact.mergedInto !== null) throw new Response("Not Found", { status: 404 });
    const saved = await saveCustomValues(contact.id, formValues(form));
    if (!saved.ok) return refuse(saved.result);
    return redirect(`/contacts/${uid}?fieldsSaved=1#contact-custom`);
  }
  const values = formValues(form, IDENTITY_FIELDS);
  const saved = await updateIdentity(uid, values);
  if ("notFound" in saved && saved.notFound) throw new Response("Not Found", { status: 404 });
  if (!saved.ok)
    return refuse(formResult({ intent: "identity", errors: saved.errors, values, message: "plugin_contacts.error.check", messageValues: saved.messageValues }));
  return redirect(`/contacts/${uid}?saved=1`);
}

export const meta = pageMeta("plugin_contacts.contact.title");

const typeKey = (type: string) => `plugin_contacts.idType.${type || "none"}`;

type ContactData = Extract<SerializeFrom<typeof loader>, { view: "contact" }>;

function IdentityForm({ contact }: { contact: ContactData["contact"] }) {
  const { t } = useTranslation();
  const failed = useFormResult("identity");
  const navigation = useNavigation();
  const location = useLocation();
  const errors = failed?.errors ?? {};
  const value = (name: (typeof IDENTITY_FIELDS)[number]) => failed?.values[name] ?? String(contact[name] ?? "");
  // no number for None and Refuses to provide: with JavaScript the field hides as the type changes;
  // without it the field stays (a number could not be typed after choosing a type), and is not kept
  const [idType, setIdType] = useState(value("idType"));
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  const field = (
    name: (typeof IDENTITY_FIELDS)[number],
    label: string,
    control: (a: Record<string, unknown>) => JSX.Element,
    help?: string,
    hidden?: boolean,
  ) => {
    const id = `contact-${name}`;
    const describedBy = [help ? `${id}-help` : "", errors[name] ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
    return (
      <div className={hidden ? undefined : "stack"} hidden={hidden}>
        <label htmlFor={id}>{label}</label>
        {control({ id, name, defaultValue: value(name), "aria-invalid": !!errors[name], "aria-describedby": describedBy })}
        {help ? (
          <p id={`${id}-help`} className="muted">
            {help}
          </p>
        ) : null}
        {errors[name] ? (
          <p id={`${id}-error`} className="field-error">
            {t(errors[name], failed?.messageValues)}
          </p>
        ) : null}
      </div>
    );
  };
  return (
    <Form method="post" noValidate className="stack narrow contact-identity" aria-labelledby="contact-identity" key={refusalKey(failed, location.key)}>
      <FormMessage result={failed} />
      {field("salutation", t("plugin_contacts.field.salutation"), (a) => (
        <input {...a} maxLength={SALUTATION_MAX} autoComplete="off" />
      ))}
      {field("name", t("plugin_contacts.field.name"), (a) => (
        <input {...a} maxLength={NAME_MAX} autoComplete="off" />
      ))}
      {field("idType", t("plugin_contacts.field.idType"), (a) => (
        <select {...a} onChange={(event) => setIdType(event.currentTarget.value)}>
          {ID_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(typeKey(type))}
            </option>
          ))}
        </select>
      ))}
      {field(
        "idNumber",
        t("plugin_contacts.field.idNumber"),
        (a) => (
          <input {...a} maxLength={40} autoComplete="off" />
        ),
        t("plugin_contacts.field.idNumberHelp"),
        hydrated && NO_NUMBER.has(idType),
      )}
      {field("notes", t("plugin_contacts.field.notes"), (a) => (
        <textarea {...a} rows={3} maxLength={NOTES_MAX} />
      ))}
      <div>
        <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
          {t("plugin_contacts.contact.save")}
        </button>
      </div>
    </Form>
  );
}

/** The admins' custom fields, each by its kind (a number is typed as text, so what was typed comes back as typed when refused). */
function CustomFieldsForm({ data }: { data: ContactData }) {
  const { t } = useTranslation();
  const failed = useFormResult("customFields");
  const navigation = useNavigation();
  const location = useLocation();
  if (!data.fields.length) return <p className="muted">{t("plugin_contacts.customFields.none")}</p>;
  const errors = failed?.errors ?? {};
  return (
    <Form method="post" noValidate className="stack narrow contact-custom" aria-labelledby="contact-custom" key={refusalKey(failed, location.key)}>
      <input type="hidden" name="intent" value="customFields" />
      <FormMessage result={failed} />
      {data.fields.map((field) => {
        const name = inputName(field.id);
        const id = `contact-${name}`;
        const error = errors[name];
        const a = {
          id,
          name,
          defaultValue: failed?.values[name] ?? data.fieldValues[field.id] ?? "",
          "aria-invalid": !!error,
          "aria-required": field.required || undefined,
          "aria-describedby":
            [field.kind === "number" || field.kind === "date" ? `${id}-help` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined,
        };
        return (
          <div className="stack" key={field.id} data-field-kind={field.kind}>
            <label htmlFor={id}>
              {field.label}
              {field.required ? ` (${t("plugin_contacts.customFields.required")})` : ""}
            </label>
            {field.kind === "select" ? (
              <select {...a}>
                <option value="">{t("plugin_contacts.customFields.choose")}</option>
                {field.options.map((o) => (
                  <option key={o} value={o}>
                    {o}
                  </option>
                ))}
              </select>
            ) : field.kind === "date" ? (
              <input {...a} type="date" />
            ) : field.kind === "number" ? (
              <input {...a} type="text" inputMode="decimal" maxLength={40} autoComplete="off" />
            ) : (
              <input {...a} type="text" maxLength={VALUE_MAX} autoComplete="off" />
            )}
            {field.kind === "number" || field.kind === "date" ? (
              <p id={`${id}-help`} className="muted">
                {t(`plugin_contacts.customFields.help.${field.kind}`)}
              </p>
            ) : null}
            {error ? (
              <p id={`${id}-error`} className="field-error">
                {t(error, failed?.messageValues)}
              </p>
            ) : null}
          </div>
        );
      })}
      <div>
        <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
          {t("plugin_contacts.customFields.save")}
        </button>
      </div>
    </Form>
  );
}

function Values({ id, title, values }: { id: string; title: string; values: string[] }) {
  const { t } = useTranslation();
  return (
    <section aria-labelledby={id} className="stack">
      <h3 id={id}>{title}</h3>
      {values.length ? (
        <ul>
          {values.map((v) => (
            <li key={v}>{v}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">{t("plugin_contacts.contact.noneKnown")}</p>
      )}
    </section>
  );
}

export default function ContactRoute() {
  const data = useLoaderData<typeof loader>();
  if (data.view === "staff") return <StaffPage staff={data.staff} timeZone={data.timeZone} />;
  if (data.view === "visitor") return <VisitorPage visitor={data.visitor} />;
  return <ContactPage data={data} />;
}

function ContactPage({ data }: { data: ContactData }) {
  const { contact, activity, saved, timeZone } = data;
  const { t } = useTranslation();
  const name = [contact.salutation, contact.name].filter(Boolean).join(" ") || t("plugin_contacts.noName");
  const pageLink = (page: number) => `/contacts/${contact.uid}?page=${page}#contact-activity`;
  return (
    <section className="stack contact-page">
      <p>
        <Link to="/contacts">{t("plugin_contacts.contact.back")}</Link>
      </p>
      <h1>{name}</h1>
      <p className="muted">
        {contact.idType && contact.idType !== "refused" ? `${t(typeKey(contact.idType))}: ${contact.idNumber}` : t(typeKey(contact.idType))}
      </p>
      <section className="card stack" aria-labelledby="contact-identity">
        <h2 id="contact-identity">{t("plugin_contacts.contact.identity")}</h2>
        {saved ? (
          <p className="notice" role="status">
            {t("plugin_contacts.contact.saved")}
          </p>
        ) : null}
        <IdentityForm contact={contact} />
      </section>
      <section className="card stack" aria-labelledby="contact-custom">
        <h2 id="contact-custom">{t("plugin_contacts.customFields.title")}</h2>
        {data.fieldsSaved ? (
          <p className="notice" role="status">
            {t("plugin_contacts.contact.saved")}
          </p>
        ) : null}
        <CustomFieldsForm data={data} />
        {data.isAdmin ? (
          <p>
            <Link to="/contacts/fields">{t("plugin_contacts.customFields.manage")}</Link>
          </p>
        ) : null}
      </section>
      <section className="stack" aria-labelledby="contact-reach">
        <h2 id="contact-reach">{t("plugin_contacts.contact.reach")}</h2>
        <Values id="contact-emails" title={t("plugin_contacts.contact.emails")} values={contact.emails} />
        <Values id="contact-phones" title={t("plugin_contacts.contact.phones")} values={contact.phones} />
        <Values id="contact-channels" title={t("plugin_contacts.contact.channels")} values={contact.channels} />
      </section>
      <section className="stack" aria-labelledby="contact-activity">
        <h2 id="contact-activity">{t("plugin_contacts.contact.activity")}</h2>
        {activity.items.length ? (
          <ol className="contact-activity">
            {activity.items.map((item) => (
              <li key={item.path} data-testid={`activity-${item.ticketNumber}`}>
                <Link to={item.path}>{`#${item.ticketNumber} ${item.title}`}</Link>
                {" · "}
                <ChannelName channel={item.channel} className="channel-name" />
                {` · ${t(`ticketStatus.${item.status}`)} · `}
                <time
                  dateTime={new Date(item.updatedAt).toISOString()}
                >{`${formatDate(item.updatedAt, timeZone)} ${formatTime(item.updatedAt, timeZone)}`}</time>
              </li>
            ))}
          </ol>
        ) : (
          <p className="muted">{activity.page > 1 ? t("plugin_contacts.contact.caughtUp") : t("plugin_contacts.contact.noActivity")}</p>
        )}
        {activity.page > 1 || activity.more ? (
          <nav className="pager" aria-label={t("plugin_contacts.contact.activityPages")}>
            {activity.page > 1 ? <Link to={pageLink(activity.page - 1)}>{t("plugin_contacts.contact.newer")}</Link> : <span />}
            <span>{t("plugin_contacts.list.page", { page: activity.page })}</span>
            {activity.more ? <Link to={pageLink(activity.page + 1)}>{t("plugin_contacts.contact.older")}</Link> : <span />}
          </nav>
        ) : activity.items.length ? (
          <p className="muted">{t("plugin_contacts.contact.caughtUp")}</p>
        ) : null}
      </section>
      <MergeSection data={data} />
    </section>
  );
}

/** Possible duplicates with a Merge link each, merges of the last day with Undo, and the way to merge any other contact. */
function MergeSection({ data }: { data: ContactData }) {
  const { t } = useTranslation();
  const failed = useFormResult("undo");
  const { contact, duplicates, merges, timeZone } = data;
  const mergeLink = (other: string) => `/contacts/${contact.uid}/merge?${new URLSearchParams({ with: other })}`;
  return (
    <>
      <section className="stack" aria-labelledby="contact-duplicates">
        <h2 id="contact-duplicates">{t("plugin_contacts.duplicates.title")}</h2>
        {duplicates.length ? (
          <ul>
            {duplicates.map((d) => (
              <li key={d.uid} data-testid={`duplicate-${d.uid}`}>
                <Link to={`/contacts/${d.uid}`}>{d.name || t("plugin_contacts.noName")}</Link>
                {` · ${d.reasons.map((r) => t(`plugin_contacts.duplicates.${r}`, { phone: d.phone ?? "" })).join(" · ")} · `}
                <Link to={mergeLink(d.uid)} aria-label={t("plugin_contacts.duplicates.mergeNamed", { name: d.name || t("plugin_contacts.noName") })}>
                  {t("plugin_contacts.duplicates.merge")}
                </Link>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">{t("plugin_contacts.duplicates.none")}</p>
        )}
      </section>
      <section className="stack" aria-labelledby="contact-merges">
        <h2 id="contact-merges">{t("plugin_contacts.merge.title")}</h2>
        {data.merged ? (
          <p className="notice" role="status">
            {t("plugin_contacts.merge.done")}
          </p>
        ) : null}
        {data.undone ? (
          <p className="notice" role="status">
            {t("plugin_contacts.merge.undone")}
          </p>
        ) : null}
        <FormMessage result={failed} />
        {merges.length ? (
          <ul>
            {merges.map((m) => (
              <li key={m.id} data-testid={`merge-${m.id}`}>
                <Form method="post" className="row">
                  <input type="hidden" name="intent" value="undo" />
                  <input type="hidden" name="merge" value={m.id} />
                  <span>
                    {t("plugin_contacts.merge.mergedHere", {
                      name: m.fromName || t("plugin_contacts.noName"),
                      at: `${formatDate(m.mergedAt, timeZone)} ${formatTime(m.mergedAt, timeZone)}`,
                    })}
                  </span>
                  <button
                    type="submit"
                    className="button"
                    aria-label={t("plugin_contacts.merge.undoNamed", { name: m.fromName || t("plugin_contacts.noName") })}
                  >
                    {t("plugin_contacts.merge.undo")}
                  </button>
                </Form>
              </li>
            ))}
          </ul>
        ) : null}
        <p>
          <Link to={`/contacts/${contact.uid}/merge`}>{t("plugin_contacts.merge.start")}</Link>
        </p>
      </section>
    </>
  );
}
