// /profile: the signed-in user's own account (photo, name, email, password). With ?username=...
// or ?ticket=... it is the profile card of that person instead (the profile modal's page without
// JavaScript, and the data the modal loads with it).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation } from "@remix-run/react";
import type { InputHTMLAttributes } from "react";
import { useTranslation } from "react-i18next";
import { requestContext, requireUser } from "~/context.server";
import { formError, formResult, formValues, useFormResult, type FormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { FormMessage } from "~/components/FormMessage";
import { SettingsNav } from "../components/SettingsNav";
import { Avatar, ProfileCard } from "../components/ProfileCard";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "../password-policy.server";
import { AvatarBodyTooLarge, changePassword, profileCard, profileSchema, readAvatarForm, removeAvatar, setAvatar, updateProfile } from "../profile.server";
import { pageMeta } from "~/meta";
import { profileScopeOf } from "../customer-profile.server";

const SAVED = ["photo", "photo_removed", "details", "password"] as const;

export const meta = pageMeta("account.title");

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request);
  const ctx = await requestContext(request, context);
  const user = ctx.user!;
  const q = new URL(request.url).searchParams;
  if (q.has("username") || q.has("ticket"))
    return json({ view: "card" as const, card: await profileCard(user, q, ctx.workspace.timeZone, profileScopeOf(ctx)) });
  return json({
    view: "own" as const,
    admin: user.type === "admin",
    me: { username: user.username, name: user.name, email: user.email, photo: user.photo ?? "" },
    saved: SAVED.find((s) => s === q.get("saved")) ?? null,
    rules: { min: String(PASSWORD_MIN_LENGTH), max: String(PASSWORD_MAX_LENGTH) },
  });
}

export async function action({ request, context }: ActionFunctionArgs) {
  // who is asking is settled from the cookie before a byte of the body is read
  const auth = await requireUser(request);
  const ip = String(context.clientIp ?? "");
  if ((request.headers.get("Content-Type") ?? "").includes("multipart/form-data")) {
    const tooLarge = () => refuse(formResult({ intent: "avatar", errors: { photo: "account.avatarTooLarge" } }), 413);
    let read;
    try {
      read = await readAvatarForm(request);
    } catch (error) {
      if (error instanceof AvatarBodyTooLarge) return tooLarge();
      throw error;
    }
    if (read.tooLarge) return tooLarge();
    const problem = await setAvatar(auth.user, read.photo ?? new Uint8Array());
    if (problem) return refuse(formResult({ intent: "avatar", errors: { photo: problem } }));
    return redirect("/profile?saved=photo");
  }
  const form = await request.formData();
  const intent = form.get("intent");
  if (intent === "remove_photo") {
    await removeAvatar(auth.user);
    return redirect("/profile?saved=photo_removed");
  }
  if (intent === "details") {
    const values = formValues(form, ["name", "email"]);
    const parsed = profileSchema.safeParse(values);
    if (!parsed.success) return refuse(formError(parsed.error, values, "details"));
    const refused = await updateProfile(auth.user, { ...parsed.data, current: String(form.get("current") ?? "") }, ip);
    if (refused) return refuse(formResult({ intent: "details", errors: refused.errors, values }), refused.status);
    return redirect("/profile?saved=details");
  }
  if (intent === "password") {
    const result = await changePassword(auth, formValues(form, ["current", "password", "confirm"]), ip);
    if (!result.ok)
      return refuse(
        formResult({
          intent: "password",
          errors: result.errors,
          message: result.message,
          messageValues: { min: String(PASSWORD_MIN_LENGTH), max: String(PASSWORD_MAX_LENGTH) },
        }),
        result.status,
      );
    return redirect("/profile?saved=password");
  }
  throw new Response("Bad Request", { status: 400 });
}

export default function Profile() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  if (data.view === "card")
    return (
      <section className="stack narrow" style={{ maxWidth: 560 }}>
        <h1>{t("account.title")}</h1>
        <ProfileCard card={data.card} />
      </section>
    );
  const { me } = data;
  return (
    <section className="settings stack">
      <SettingsNav admin={data.admin} />
      <h1>{t("account.title")}</h1>
      {data.saved ? (
        <p className="notice" role="status">
          {t(
            {
              photo: "account.photoSaved",
              photo_removed: "account.photoRemoved",
              details: "account.saved",
              password: "account.passwordChanged",
            }[data.saved],
          )}
        </p>
      ) : null}
      <PhotoSection photo={me.photo} name={me.name} />
      <DetailsSection me={me} />
      <PasswordSection rules={data.rules} />
      <p>
        <Link to={`/contacts/${encodeURIComponent(me.username)}`}>{t("account.viewProfile")}</Link>
      </p>
    </section>
  );
}

/** An input with its label and its error, tied together for screen readers. */
function Field({
  name,
  label,
  result,
  hint,
  ...input
}: { name: string; label: string; result: FormResult | undefined; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const { t } = useTranslation();
  const error = result?.errors[name];
  const ids = [hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ");
  return (
    <>
      <label>
        {label}
        <input name={name} aria-invalid={error ? true : undefined} aria-describedby={ids || undefined} {...input} />
      </label>
      {hint ? (
        <p id={`${name}-hint`} className="muted" style={{ margin: 0 }}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${name}-error`} className="field-error">
          {t(error, result?.messageValues)}
        </p>
      ) : null}
    </>
  );
}

function PhotoSection({ photo, name }: { photo: string; name: string }) {
  const { t } = useTranslation();
  const result = useFormResult("avatar");
  const busy = useNavigation().state === "submitting";
  return (
    <section className="stack narrow" aria-labelledby="photo-heading">
      <h2 id="photo-heading">{t("account.photo")}</h2>
      {photo ? (
        <img
          src={photo}
          alt={t("account.photoOf", { name })}
          width={96}
          height={96}
          style={{ borderRadius: "50%", objectFit: "cover" }}
          data-testid="own-photo"
        />
      ) : (
        <div style={{ display: "flex", gap: ".5rem", alignItems: "center" }}>
          <Avatar photo="" name={name} size={96} />
          <span className="muted">{t("account.noPhoto")}</span>
        </div>
      )}
      <Form method="post" encType="multipart/form-data" className="stack">
        <Field
          name="photo"
          type="file"
          label={t("account.photoFile")}
          hint={t("account.photoHelp")}
          accept="image/png,image/jpeg,image/webp,image/gif"
          result={result}
          required
        />
        <button type="submit" className="button" disabled={busy}>
          {t("account.upload")}
        </button>
      </Form>
      {photo ? (
        <Form method="post">
          <button type="submit" name="intent" value="remove_photo" className="button">
            {t("account.removePhoto")}
          </button>
        </Form>
      ) : null}
    </section>
  );
}

function DetailsSection({ me }: { me: { username: string; name: string; email: string } }) {
  const { t } = useTranslation();
  const result = useFormResult("details");
  const values = result?.values;
  return (
    <section aria-labelledby="details-heading">
      <h2 id="details-heading">{t("account.details")}</h2>
      {/* keyed by the refusal: a refused post shows what was typed, a saved one the stored values */}
      <Form method="post" className="stack narrow" noValidate key={result ? JSON.stringify(result.values) : "stored"}>
        <input type="hidden" name="intent" value="details" />
        <FormMessage result={result} />
        <label>
          {t("account.username")}
          <input value={me.username} readOnly aria-readonly="true" />
        </label>
        <Field name="name" label={t("account.name")} result={result} defaultValue={values?.name ?? me.name} autoComplete="name" maxLength={100} required />
        <Field
          name="email"
          type="email"
          label={t("account.email")}
          result={result}
          defaultValue={values?.email ?? me.email}
          autoComplete="email"
          maxLength={254}
        />
        {/* the email is where reset links go: changing it asks for the password */}
        <Field
          name="current"
          type="password"
          label={t("account.currentForEmail")}
          result={result}
          defaultValue=""
          autoComplete="current-password"
          maxLength={1000}
        />
        <button type="submit" className="button primary">
          {t("account.save")}
        </button>
      </Form>
    </section>
  );
}

function PasswordSection({ rules }: { rules: { min: string; max: string } }) {
  const { t } = useTranslation();
  const result = useFormResult("password");
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">{t("account.passwordTitle")}</h2>
      <Form method="post" className="stack narrow" noValidate>
        <input type="hidden" name="intent" value="password" />
        <FormMessage result={result} />
        <Field name="current" type="password" label={t("account.currentPassword")} result={result} autoComplete="current-password" required />
        <Field
          name="password"
          type="password"
          label={t("account.newPassword")}
          hint={t("password.rules", rules)}
          result={result}
          autoComplete="new-password"
          minLength={Number(rules.min)}
          required
        />
        <Field name="confirm" type="password" label={t("account.confirmPassword")} result={result} autoComplete="new-password" required />
        <button type="submit" className="button primary">
          {t("account.changePassword")}
        </button>
      </Form>
    </section>
  );
}
