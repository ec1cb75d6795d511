// /settings/users (admins): the users of the workspace, a search, and the forms to create a user
// with a password or to invite one by email.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { publicOrigin, requestContext, requireAdmin } from "~/context.server";
import { formError, formValues, readFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { listDepartmentChoices } from "~/conversation/choices.server";
import { mailConfigured } from "~/mail/outbox.server";
import { AdminOnlyBoundary } from "~/components/AdminOnly";
import { SettingsNav } from "../components/SettingsNav";
import { InviteSent, SeatsMessage, SelectField, TextField, TypeField } from "../components/UserFields";
import { seatState } from "../seats.server";
import { inviteUser } from "../invites.server";
import { PASSWORD_MIN_LENGTH } from "../password-policy.server";
import { createUser, createUserSchema, inviteUserSchema, listUsers, refusal, RULE_VALUES, SEARCH_MAX_LENGTH } from "../users-admin.server";
import styles from "../users.css";
import { pageMeta } from "~/meta";
import { TableScroll } from "~/components/TableScroll";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const ctx = await requestContext(request, context);
  const params = new URL(request.url).searchParams;
  const q = (params.get("q") ?? "").slice(0, SEARCH_MAX_LENGTH);
  const [users, departments, seats] = await Promise.all([listUsers(q), listDepartmentChoices(), seatState()]);
  return json(
    {
      q,
      users,
      departments,
      seats,
      planLink: ctx.edition.enabled.includes("payment"),
      mail: mailConfigured(),
      created: params.has("created"),
      passwordMin: PASSWORD_MIN_LENGTH,
      rules: RULE_VALUES,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

const CREATE_FIELDS = ["username", "name", "email", "type", "department", "password"] as const;
const INVITE_FIELDS = ["username", "name", "email", "type", "department"] as const;

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const ctx = await requestContext(request, context);
  const form = await request.formData();
  const intent = form.get("intent") === "invite" ? "invite" : "create";
  const actor = { id: user.id, name: user.name };
  const ip = context.clientIp;
  if (intent === "create") {
    const values = formValues(form, CREATE_FIELDS);
    const kept = { ...values, password: "" };
    const parsed = createUserSchema.safeParse(values);
    if (!parsed.success) return refuse(formError(parsed.error, kept, intent));
    try {
      await createUser(actor, parsed.data, ip);
    } catch (error) {
      return refusal(error, intent, kept);
    }
    return redirect("/settings/users?created=1");
  }
  const values = formValues(form, INVITE_FIELDS);
  const parsed = inviteUserSchema.safeParse(values);
  if (!parsed.success) return refuse(formError(parsed.error, values, intent));
  try {
    const invite = await inviteUser(actor, parsed.data, { origin: publicOrigin(request), product: ctx.edition.title, ip });
    // the link is shown only when no mail carries it
    return json(
      { invited: { name: parsed.data.name, email: parsed.data.email, link: invite.mailed ? null : invite.link } },
      { headers: { "Cache-Control": "private, no-store" } },
    );
  } catch (error) {
    return refusal(error, intent, values);
  }
}

export const meta = pageMeta("users.title");

export default function SettingsUsers() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  const invited = actionData && "invited" in actionData ? actionData.invited : null;
  const seatsFull = data.seats.limit !== null && data.seats.used >= data.seats.limit;
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <h1>{t("users.title")}</h1>
      {data.created ? (
        <p className="notice" role="status">
          {t("users.created")}
        </p>
      ) : null}
      {invited ? <InviteSent invite={invited} /> : null}
      <p>
        {data.seats.limit === null
          ? t("users.seats.unlimited", { used: data.seats.used })
          : t("users.seats.count", { used: data.seats.used, limit: data.seats.limit })}
        {seatsFull && data.planLink ? (
          <>
            {" "}
            <Link to="/plan">{t("users.seats.buyMore")}</Link>
          </>
        ) : null}
      </p>

      <Form method="get" role="search" className="inline-form">
        <label htmlFor="users-q">{t("users.search")}</label>
        <input id="users-q" name="q" type="search" defaultValue={data.q} maxLength={100} />
        <button type="submit" className="button">
          {t("users.searchButton")}
        </button>
        {data.q ? <Link to="/settings/users">{t("users.searchClear")}</Link> : null}
      </Form>
      <UserTable users={data.users} q={data.q} />

      <div className="users-forms">
        <InviteForm departments={data.departments} mail={data.mail} planLink={data.planLink} rules={data.rules} />
        <CreateForm departments={data.departments} planLink={data.planLink} passwordMin={data.passwordMin} rules={data.rules} />
      </div>
    </section>
  );
}

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;

function UserTable({ users, q }: { users: Loaded["users"]; q: string }) {
  const { t } = useTranslation();
  if (!users.length)
    return (
      <p className="muted" role="status">
        {q ? t("users.noMatch", { q }) : t("users.none")}
      </p>
    );
  return (
    <TableScroll label={t("users.count", { count: users.length })}>
      <table className="payment-table users-table">
        <caption className="muted">{t("users.count", { count: users.length })}</caption>
        <thead>
          <tr>
            <th scope="col">{t("users.fields.name")}</th>
            <th scope="col">{t("users.fields.username")}</th>
            <th scope="col">{t("users.fields.email")}</th>
            <th scope="col">{t("users.fields.type")}</th>
            <th scope="col">{t("users.fields.department")}</th>
            <th scope="col">{t("users.fields.status")}</th>
            <th scope="col">{t("users.fields.tfa")}</th>
          </tr>
        </thead>
        <tbody>
          {users.map((u) => (
            <tr key={u.id} data-username={u.username}>
              <th scope="row">
                <Link to={`/settings/users/${u.id}`}>{u.name}</Link>
              </th>
              <td>{u.username}</td>
              <td>{u.email}</td>
              <td>{t(`userType.${u.type}`)}</td>
              <td>{u.department}</td>
              <td>{t(`users.status.${u.status}`)}</td>
              <td>{u.tfa ? t("common.on") : t("common.off")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

function departmentOptions(departments: { id: number; name: string }[], none: string) {
  return [{ value: "", label: none }, ...departments.map((d) => ({ value: String(d.id), label: d.name }))];
}

type FormProps = { departments: { id: number; name: string }[]; planLink: boolean; rules: Record<string, string> };

function InviteForm({ departments, mail, planLink, rules }: FormProps & { mail: boolean }) {
  const { t } = useTranslation();
  const result = readFormResult(useActionData(), "invite");
  return (
    <Form method="post" className="stack narrow" aria-labelledby="invite-title" noValidate>
      <input type="hidden" name="intent" value="invite" />
      <h2 id="invite-title">{t("users.invite.title")}</h2>
      <p className="muted">{mail ? t("users.invite.explainMail") : t("users.invite.explainNoMail")}</p>
      <SeatsMessage result={result} planLink={planLink} />
      <TextField form="invite" name="email" label={t("users.fields.email")} type="email" autoComplete="off" result={result} required />
      <TextField form="invite" name="name" label={t("users.fields.name")} autoComplete="off" result={result} required />
      <TextField
        form="invite"
        name="username"
        label={t("users.fields.username")}
        autoComplete="off"
        hint={t("users.rules.usernameHint", rules)}
        result={result}
        required
      />
      <TypeField form="invite" result={result} defaultValue="agent" />
      <SelectField
        form="invite"
        name="department"
        label={t("users.fields.department")}
        options={departmentOptions(departments, t("users.noDepartment"))}
        result={result}
      />
      <button type="submit" className="button primary">
        {t("users.invite.submit")}
      </button>
    </Form>
  );
}

function CreateForm({ departments, planLink, passwordMin, rules }: FormProps & { passwordMin: number }) {
  const { t } = useTranslation();
  const result = readFormResult(useActionData(), "create");
  return (
    <Form method="post" className="stack narrow" aria-labelledby="create-title" noValidate>
      <input type="hidden" name="intent" value="create" />
      <h2 id="create-title">{t("users.create.title")}</h2>
      <SeatsMessage result={result} planLink={planLink} />
      <TextField form="create" name="name" label={t("users.fields.name")} autoComplete="off" result={result} required />
      <TextField
        form="create"
        name="username"
        label={t("users.fields.username")}
        autoComplete="off"
        hint={t("users.rules.usernameHint", rules)}
        result={result}
        required
      />
      <TextField form="create" name="email" label={t("users.fields.emailOptional")} type="email" autoComplete="off" result={result} />
      <TextField
        form="create"
        name="password"
        label={t("users.fields.password")}
        type="password"
        autoComplete="new-password"
        hint={t("password.rules", { min: passwordMin })}
        result={result}
        required
      />
      <TypeField form="create" result={result} defaultValue="agent" />
      <SelectField
        form="create"
        name="department"
        label={t("users.fields.department")}
        options={departmentOptions(departments, t("users.noDepartment"))}
        result={result}
      />
      <button type="submit" className="button primary">
        {t("users.create.submit")}
      </button>
    </Form>
  );
}

export { AdminOnlyBoundary as ErrorBoundary };
