// /settings/users/:id (admins): one user's name, email, department, type, rank and permissions;
// disable or re-enable, reset two-factor sign-in, send the invite again.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { publicOrigin, requestContext, requireAdmin } from "~/context.server";
import { formError, formResult, formValues, readFormResult, valueList } from "~/forms";
import { refuse } from "~/forms.server";
import { AdminOnlyBoundary } from "~/components/AdminOnly";
import { listDepartmentChoices } from "~/conversation/choices.server";
import { mailConfigured } from "~/mail/outbox.server";
import { formatDate } from "~/time";
import { SettingsNav } from "../components/SettingsNav";
import { InviteSent, SeatsMessage, SelectField, TextField, TypeField } from "../components/UserFields";
import { resendInvite } from "../invites.server";
import { disableUser, enableUser, PERMISSION_FLAGS, RANK_MAX, refusal, resetTfa, updateUser, updateUserSchema, userDetail } from "../users-admin.server";
import styles from "../users.css";
import { shellTitle } from "~/meta";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];

const NOTICES = ["saved", "unchanged", "disabled", "enabled", "tfa_reset"] as const;

function userId(params: { id?: string }) {
  const id = Number(params.id);
  if (!/^\d{1,9}$/.test(params.id ?? "") || !id) throw new Response("Not Found", { status: 404 });
  return id;
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const auth = await requireAdmin(request);
  const ctx = await requestContext(request, context);
  const id = userId(params);
  const [user, departments] = await Promise.all([userDetail(id), listDepartmentChoices()]);
  if (!user) throw new Response("Not Found", { status: 404 });
  const notice = NOTICES.find((n) => n === new URL(request.url).searchParams.get("notice")) ?? null;
  const tz = ctx.workspace.timeZone;
  return json(
    {
      user,
      departments,
      notice,
      self: auth.user.id === id,
      disabledOn: user.disabledAt ? formatDate(user.disabledAt, tz) : null,
      inviteExpiresOn: user.inviteExpiresAt ? formatDate(user.inviteExpiresAt, tz) : null,
      mail: mailConfigured(),
      planLink: ctx.edition.enabled.includes("payment"),
      flags: PERMISSION_FLAGS,
      rankMax: RANK_MAX,
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

const EDIT_FIELDS = ["name", "email", "type", "department", "rank", "permissions"] as const;

export async function action({ request, params, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const ctx = await requestContext(request, context);
  const id = userId(params);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const actor = { id: user.id, name: user.name };
  const ip = context.clientIp;
  const done = (notice: (typeof NOTICES)[number]) => redirect(`/settings/users/${id}?notice=${notice}`);
  try {
    switch (intent) {
      case "save": {
        const values = formValues(form, EDIT_FIELDS);
        const parsed = updateUserSchema.safeParse(values);
        if (!parsed.success) return refuse(formError(parsed.error, values, intent));
        try {
          return done((await updateUser(actor, id, parsed.data, ip)).length ? "saved" : "unchanged");
        } catch (error) {
          return refusal(error, intent, values);
        }
      }
      case "disable":
        await disableUser(actor, id, ip);
        return done("disabled");
      case "enable":
        await enableUser(actor, id, ip);
        return done("enabled");
      case "reset_tfa":
        await resetTfa(actor, id, ip);
        return done("tfa_reset");
      case "resend_invite": {
        const invite = await resendInvite(actor, id, { origin: publicOrigin(request), product: ctx.edition.title, ip });
        const target = await userDetail(id);
        return json(
          { invited: { name: target?.name ?? "", email: target?.email ?? "", link: invite.mailed ? null : invite.link } },
          { headers: { "Cache-Control": "private, no-store" } },
        );
      }
      default:
        return refuse(formResult({ message: "users.unknownAction" }));
    }
  } catch (error) {
    return refusal(error, intent, {});
  }
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => [{ title: `${data ? `${data.user.name} - ` : ""}${shellTitle(matches)}` }];

export default function SettingsUser() {
  const data = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const { t } = useTranslation();
  const { user } = data;
  const invited = actionData && "invited" in actionData ? actionData.invited : null;
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <p>
        <Link to="/settings/users">{t("users.back")}</Link>
      </p>
      <h1>
        {user.name} <span className="muted">({user.username})</span>
      </h1>
      {data.notice ? (
        <p className="notice" role="status">
          {t(`users.notice.${data.notice}`)}
        </p>
      ) : null}
      {invited ? <InviteSent invite={invited} /> : null}
      <p data-testid="user-status">
        {t("users.fields.status")}: {t(`users.status.${user.status}`)}
        {data.disabledOn ? ` (${t("users.disabledOn", { date: data.disabledOn })})` : null}
        {user.status === "invited" && data.inviteExpiresOn ? ` (${t("users.invite.expiresOn", { date: data.inviteExpiresOn })})` : null}
      </p>
      <EditForm />
      <AccountActions />
    </section>
  );
}

function EditForm() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const result = readFormResult(useActionData(), "save");
  const { user } = data;
  const checked = result ? valueList(result.values.permissions) : user.permissions;
  return (
    <Form method="post" className="stack narrow" aria-labelledby="edit-title" noValidate>
      <h2 id="edit-title">{t("users.edit.title")}</h2>
      <SeatsMessage result={result} planLink={data.planLink} />
      <TextField form="edit" name="name" label={t("users.fields.name")} defaultValue={user.name} autoComplete="off" result={result} required />
      <TextField form="edit" name="email" label={t("users.fields.emailOptional")} type="email" defaultValue={user.email} autoComplete="off" result={result} />
      <TypeField form="edit" result={result} defaultValue={user.type} />
      <SelectField
        form="edit"
        name="department"
        label={t("users.fields.department")}
        defaultValue={user.departmentId ? String(user.departmentId) : ""}
        options={[{ value: "", label: t("users.noDepartment") }, ...data.departments.map((d) => ({ value: String(d.id), label: d.name }))]}
        result={result}
      />
      <TextField
        form="edit"
        name="rank"
        label={t("users.fields.rank")}
        inputMode="numeric"
        defaultValue={String(user.rank)}
        hint={t("users.rankHint", { rankMax: data.rankMax })}
        maxLength={7}
        result={result}
        required
      />
      <fieldset aria-describedby="edit-permissions-hint" className="permission-list">
        <legend>{t("users.fields.permissions")}</legend>
        <p id="edit-permissions-hint" className="muted">
          {t("users.permissionsHint")}
        </p>
        {data.flags.map((flag) => (
          <label key={flag}>
            <input type="checkbox" name="permissions" value={flag} defaultChecked={checked.includes(flag)} />
            {t(`users.permission.${flag}`)}
          </label>
        ))}
      </fieldset>
      <button type="submit" name="intent" value="save" className="button primary">
        {t("common.save")}
      </button>
    </Form>
  );
}

function AccountActions() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const actionData = useActionData();
  const { user } = data;
  // a refusal of these buttons (last admin, seats) shows above them
  const result = ["disable", "enable", "reset_tfa", "resend_invite"].map((i) => readFormResult(actionData, i)).find(Boolean);
  return (
    <section className="stack" aria-labelledby="account-title">
      <h2 id="account-title">{t("users.account.title")}</h2>
      <SeatsMessage result={result} planLink={data.planLink} />
      {user.status === "invited" ? (
        <Form method="post" className="inline-form">
          <span>{data.mail && user.email ? t("users.invite.resendExplainMail", { email: user.email }) : t("users.invite.resendExplain")}</span>
          <button type="submit" name="intent" value="resend_invite" className="button">
            {t("users.invite.resend")}
          </button>
        </Form>
      ) : null}
      {user.tfa ? (
        <Form method="post" className="inline-form">
          <span>{t("users.account.tfaOn")}</span>
          <button type="submit" name="intent" value="reset_tfa" className="button">
            {t("users.account.resetTfa")}
          </button>
        </Form>
      ) : null}
      {user.disabledAt ? (
        <Form method="post" className="inline-form">
          <span>{t("users.account.enableExplain")}</span>
          <button type="submit" name="intent" value="enable" className="button primary">
            {t("users.account.enable")}
          </button>
        </Form>
      ) : data.self ? (
        <p className="muted">{t("users.account.self")}</p>
      ) : (
        <Form method="post" className="inline-form">
          <span>{t("users.account.disableExplain")}</span>
          <button type="submit" name="intent" value="disable" className="button danger">
            {t("users.account.disable")}
          </button>
        </Form>
      )}
    </section>
  );
}

export { AdminOnlyBoundary as ErrorBoundary };
