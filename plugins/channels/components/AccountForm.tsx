// The form of one channel account, for any kind: name, address and department, then the fields its
// adapter declares. Secret fields are always empty inputs: a stored secret is only said to be set.
import { Form } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { FormResult } from "~/forms";
import { FormMessage } from "~/components/FormMessage";
import type { AccountField } from "../adapter";

/** Client-safe twin of settings.server.ts fieldInput. */
const fieldInput = (name: string) => `config.${name}`;

export interface AccountFormProps {
  idPrefix: string;
  intent: "add" | "save";
  kind: string;
  fields: AccountField[];
  departments: { id: number; name: string }[];
  result: FormResult | undefined;
  /** What the account holds now (an edit), else nothing. */
  defaults?: { name: string; address: string; departmentId: number | null; config: Record<string, string> };
  secretsSet?: string[];
}

export function AccountForm(props: AccountFormProps) {
  const { t } = useTranslation();
  const { idPrefix, result, defaults } = props;
  const errors = result?.errors ?? {};
  const value = (name: string, fallback = "") => result?.values[name] ?? fallback;

  /** A labelled input with its hint and error tied to it (aria-describedby). */
  const row = (
    name: string,
    label: string,
    input: (a: { id: string; name: string; "aria-invalid": boolean; "aria-describedby": string | undefined }) => JSX.Element,
    help?: string,
  ) => {
    const id = `${idPrefix}-${name.replace(/\W/g, "-")}`;
    const describedBy = [help ? `${id}-help` : "", errors[name] ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
    return (
      <div className="stack" key={name}>
        <label htmlFor={id}>{label}</label>
        {input({ id, name, "aria-invalid": !!errors[name], "aria-describedby": describedBy })}
        {help ? (
          <p id={`${id}-help`} className="muted">
            {help}
          </p>
        ) : null}
        {errors[name] ? (
          <p id={`${id}-error`} className="field-error">
            {t(errors[name], { address: result?.values[name] ?? "", ...result?.messageValues })}
          </p>
        ) : null}
      </div>
    );
  };

  return (
    <Form
      method="post"
      noValidate
      className="stack narrow"
      aria-label={props.intent === "add" ? t("plugin_channels.addTitle", { kind: t(`channel.${props.kind}`) }) : undefined}
    >
      <input type="hidden" name="intent" value={props.intent} />
      {props.intent === "add" ? <input type="hidden" name="kind" value={props.kind} /> : null}
      <FormMessage result={result} />
      {errors.kind ? (
        <p className="form-error" role="alert">
          {t(errors.kind)}
        </p>
      ) : null}
      {row(
        "name",
        t("plugin_channels.field.name"),
        (a) => (
          <input {...a} type="text" required maxLength={100} defaultValue={value("name", defaults?.name)} />
        ),
        t("plugin_channels.help.name"),
      )}
      {row(
        "address",
        t("plugin_channels.field.address"),
        (a) => (
          <input {...a} type="text" required maxLength={254} autoComplete="off" defaultValue={value("address", defaults?.address)} />
        ),
        t("plugin_channels.help.address"),
      )}
      {row("department", t("plugin_channels.field.department"), (a) => (
        <select {...a} defaultValue={value("department", defaults?.departmentId == null ? "" : String(defaults.departmentId))}>
          <option value="">{t("plugin_channels.noDepartment")}</option>
          {props.departments.map((d) => (
            <option key={d.id} value={String(d.id)}>
              {d.name}
            </option>
          ))}
        </select>
      ))}
      {props.fields.map((field) => {
        const name = fieldInput(field.name);
        const stored = defaults?.config[field.name] ?? "";
        if (field.type === "checkbox") {
          const checked = result ? value(name) !== "" : stored === "1";
          const id = `${idPrefix}-${name.replace(/\W/g, "-")}`;
          return (
            <div className="stack" key={name}>
              <label htmlFor={id} className="inline">
                <input id={id} name={name} type="checkbox" value="1" defaultChecked={checked} aria-describedby={field.hint ? `${id}-help` : undefined} />
                {t(field.label)}
              </label>
              {field.hint ? (
                <p id={`${id}-help`} className="muted">
                  {t(field.hint)}
                </p>
              ) : null}
            </div>
          );
        }
        if (field.type === "select") {
          const options = field.options ?? [];
          return row(
            name,
            t(field.label),
            (a) => (
              <select {...a} defaultValue={value(name, stored || options[0]?.value)}>
                {options.map((o) => (
                  <option key={o.value} value={o.value}>
                    {t(o.label)}
                  </option>
                ))}
              </select>
            ),
            field.hint ? t(field.hint) : undefined,
          );
        }
        if (field.secret) {
          const set = props.secretsSet?.includes(field.name);
          return row(
            name,
            t(field.label),
            // never a value: the stored secret stays on the server, an empty field keeps it
            (a) => <input {...a} type="password" autoComplete="new-password" defaultValue="" required={field.required && !set} />,
            [set ? t("plugin_channels.secretKeep") : "", field.hint ? t(field.hint) : ""].filter(Boolean).join(" ") || undefined,
          );
        }
        return row(
          name,
          t(field.label),
          (a) => (
            <input
              {...a}
              type={field.type === "number" ? "text" : field.type}
              inputMode={field.type === "number" ? "numeric" : undefined}
              placeholder={field.placeholder}
              required={field.required}
              autoComplete="off"
              defaultValue={value(name, stored)}
            />
          ),
          field.hint ? t(field.hint) : undefined,
        );
      })}
      <button type="submit" className="button primary">
        {props.intent === "add" ? t("plugin_channels.addSubmit") : t("plugin_channels.save")}
      </button>
    </Form>
  );
}
