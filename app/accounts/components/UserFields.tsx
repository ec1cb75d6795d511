// The inputs of the user forms (create, invite, edit): a label on each, its error under it and tied
// to it (aria-describedby), what was typed kept after a refusal.
import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { FormResult } from "~/forms";
import { FormMessage } from "~/components/FormMessage";

type Props = {
  /** Prefix of the ids: two forms on one page each have their own. */
  form: string;
  name: string;
  label: string;
  result: FormResult | undefined;
  defaultValue?: string;
  type?: string;
  required?: boolean;
  autoComplete?: string;
  hint?: string;
  inputMode?: "numeric";
  maxLength?: number;
};

export function TextField(props: Props) {
  const { t } = useTranslation();
  const id = `${props.form}-${props.name}`;
  const error = props.result?.errors[props.name];
  const described = [props.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  // passwords are never sent back
  const kept = props.type === "password" ? undefined : props.result?.values[props.name];
  return (
    <div className="user-field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        defaultValue={kept ?? props.defaultValue}
        required={props.required}
        autoComplete={props.autoComplete}
        inputMode={props.inputMode}
        maxLength={props.maxLength}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
      />
      {props.hint ? (
        <p id={`${id}-hint`} className="muted">
          {props.hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {t(error, props.result?.messageValues)}
        </p>
      ) : null}
    </div>
  );
}

export function SelectField(props: {
  form: string;
  name: string;
  label: string;
  result: FormResult | undefined;
  defaultValue?: string;
  options: { value: string; label: string }[];
}) {
  const { t } = useTranslation();
  const id = `${props.form}-${props.name}`;
  const error = props.result?.errors[props.name];
  return (
    <div className="user-field">
      <label htmlFor={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        defaultValue={props.result?.values[props.name] ?? props.defaultValue}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {t(error, props.result?.messageValues)}
        </p>
      ) : null}
    </div>
  );
}

/** The user types as radio buttons in a fieldset. */
export function TypeField({ form, result, defaultValue }: { form: string; result: FormResult | undefined; defaultValue: string }) {
  const { t } = useTranslation();
  const chosen = result?.values.type ?? defaultValue;
  const error = result?.errors.type;
  return (
    <fieldset className="inline" aria-describedby={error ? `${form}-type-error` : undefined}>
      <legend>{t("users.fields.type")}</legend>
      {(["agent", "admin"] as const).map((type) => (
        <label key={type}>
          <input type="radio" name="type" value={type} defaultChecked={chosen === type} />
          {t(`userType.${type}`)}
        </label>
      ))}
      {error ? (
        <p id={`${form}-type-error`} className="field-error">
          {t(error, result?.messageValues)}
        </p>
      ) : null}
    </fieldset>
  );
}

/** After an invite: mailed, or (no mail server) the link for the admin to pass on. */
export function InviteSent({ invite }: { invite: { name: string; email: string; link: string | null } }) {
  const { t } = useTranslation();
  if (!invite.link)
    return (
      <p className="notice" role="status">
        {t("users.invite.mailed", { name: invite.name, email: invite.email })}
      </p>
    );
  return (
    <div className="stack invite-link" role="status">
      <p className="notice">{t("users.invite.created", { name: invite.name })}</p>
      <p>{t("users.invite.noMail")}</p>
      <label htmlFor="invite-link">{t("users.invite.linkLabel")}</label>
      <input id="invite-link" readOnly value={invite.link} data-testid="invite-link" onFocus={(e) => e.currentTarget.select()} />
      <p className="muted">{t("users.invite.linkNote")}</p>
    </div>
  );
}

/** The seats message carries a link to /plan (when this edition sells seats). */
export function SeatsMessage({ result, planLink }: { result: FormResult | undefined; planLink: boolean }) {
  const { t } = useTranslation();
  if (!result?.message?.startsWith("users.seats.")) return <FormMessage result={result} />;
  return (
    <p className="form-error" role="alert">
      {t(result.message, result.messageValues)} {planLink ? <Link to="/plan">{t("users.seats.toPlan")}</Link> : null}
    </p>
  );
}
