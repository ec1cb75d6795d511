// The form that creates the workspace and its first admin, on /setup and /signup: a plain post
// that keeps what was typed (never the password) and ties each error to its input.
import { Form, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { useFormResult } from "~/forms";
import { LANGUAGE_NAMES, LANGUAGES } from "~/i18n";
import { USERNAME_RULE_VALUES } from "~/accounts/username";

export interface WorkspaceFormDefaults {
  timezone: string;
  language: string;
  timeZones: string[];
  passwordMin: number;
  /** The setup link's token, posted back with the form. */
  token?: string;
}

/** A labelled input with its hint and error under it, both named by aria-describedby. */
function Field({
  name,
  label,
  hint,
  error,
  errorValues,
  children,
}: {
  name: string;
  label: string;
  hint?: string;
  error?: string;
  errorValues?: Record<string, string>;
  children: (props: { id: string; name: string; "aria-invalid": boolean; "aria-describedby"?: string }) => JSX.Element;
}) {
  const { t } = useTranslation();
  const described = [hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ");
  return (
    <div className="stack">
      <label htmlFor={`field-${name}`}>{label}</label>
      {children({ id: `field-${name}`, name, "aria-invalid": !!error, "aria-describedby": described || undefined })}
      {hint ? (
        <p className="muted" id={`${name}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field-error" id={`${name}-error`}>
          {t(error, errorValues)}
        </p>
      ) : null}
    </div>
  );
}

export function WorkspaceForm({ defaults, submit }: { defaults: WorkspaceFormDefaults; submit: string }) {
  const { t } = useTranslation();
  const result = useFormResult();
  const busy = useNavigation().state !== "idle";
  const errors = result?.errors ?? {};
  const values = result?.values ?? {};
  const field = (name: string, label: string, input: Parameters<typeof Field>[0]["children"], hint?: string) => (
    <Field name={name} label={label} hint={hint} error={errors[name]} errorValues={result?.messageValues}>
      {input}
    </Field>
  );
  return (
    <Form method="post" noValidate className="stack">
      {defaults.token ? <input type="hidden" name="token" value={defaults.token} /> : null}
      <FormMessage result={result} />
      <fieldset className="stack">
        <legend>{t("setup.form.workspaceSection")}</legend>
        {field("workspace", t("setup.form.workspace"), (p) => (
          <input {...p} defaultValue={values.workspace ?? ""} autoComplete="organization" maxLength={100} required />
        ))}
        {field("timezone", t("setup.form.timezone"), (p) => (
          <select {...p} defaultValue={values.timezone || defaults.timezone}>
            {defaults.timeZones.map((zone) => (
              <option key={zone} value={zone}>
                {zone.replaceAll("_", " ")}
              </option>
            ))}
          </select>
        ))}
        {field("language", t("setup.form.language"), (p) => (
          <select {...p} defaultValue={values.language || defaults.language}>
            {LANGUAGES.map((language) => (
              <option key={language} value={language} lang={language}>
                {LANGUAGE_NAMES[language]}
              </option>
            ))}
          </select>
        ))}
      </fieldset>
      <fieldset className="stack">
        <legend>{t("setup.form.adminSection")}</legend>
        {field(
          "username",
          t("setup.form.username"),
          (p) => (
            <input {...p} defaultValue={values.username ?? ""} autoComplete="username" required />
          ),
          t("setup.form.usernameHint", USERNAME_RULE_VALUES),
        )}
        {field("name", t("setup.form.name"), (p) => (
          <input {...p} defaultValue={values.name ?? ""} autoComplete="name" maxLength={100} required />
        ))}
        {field("email", t("setup.form.email"), (p) => (
          <input {...p} type="email" defaultValue={values.email ?? ""} autoComplete="email" required />
        ))}
        {field(
          "password",
          t("setup.form.password"),
          (p) => (
            <input {...p} type="password" autoComplete="new-password" required />
          ),
          t("password.rules", { min: defaults.passwordMin }),
        )}
      </fieldset>
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? t("setup.form.creating") : submit}
      </button>
    </Form>
  );
}
