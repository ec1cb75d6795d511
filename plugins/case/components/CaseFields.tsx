// The fields of a case (new and edit), each labelled, its error tied to it (aria-describedby), its
// value what was typed when the post was refused.
import { useTranslation } from "react-i18next";
import type { FormResult } from "~/forms";
import { CASE_STATUSES, TITLE_MAX } from "../limits";

export interface CaseFieldOptions {
  types: { id: number; name: string; active: boolean }[];
  staff: { id: number; name: string }[];
}

export function CaseFields({
  options,
  initial,
  failed,
  withStatus,
}: {
  options: CaseFieldOptions;
  initial: Record<string, string>;
  failed: FormResult | undefined;
  withStatus: boolean;
}) {
  const { t } = useTranslation();
  const errors = failed?.errors ?? {};
  const value = (name: string) => failed?.values[name] ?? initial[name] ?? "";
  const row = (name: string, label: string, control: (a: Record<string, unknown>) => JSX.Element) => {
    const id = `case-${name}`;
    return (
      <div className="stack">
        <label htmlFor={id}>{label}</label>
        {control({ id, name, defaultValue: value(name), "aria-invalid": !!errors[name], "aria-describedby": errors[name] ? `${id}-error` : undefined })}
        {errors[name] ? (
          <p id={`${id}-error`} className="field-error">
            {t(errors[name], { max: TITLE_MAX, ...failed?.messageValues })}
          </p>
        ) : null}
      </div>
    );
  };
  return (
    <>
      {row("title", t("plugin_case.field.title"), (a) => (
        <input {...a} type="text" required maxLength={TITLE_MAX} autoComplete="off" />
      ))}
      {row("case_type", t("plugin_case.field.type"), (a) => (
        <select {...a}>
          <option value="">{t("plugin_case.none")}</option>
          {options.types
            .filter((ty) => ty.active || String(ty.id) === value("case_type"))
            .map((ty) => (
              <option key={ty.id} value={String(ty.id)}>
                {ty.name}
              </option>
            ))}
        </select>
      ))}
      {withStatus
        ? row("status", t("plugin_case.field.status"), (a) => (
            <select {...a}>
              {CASE_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {t(`plugin_case.status.${s}`)}
                </option>
              ))}
            </select>
          ))
        : null}
      {row("owner", t("plugin_case.field.owner"), (a) => (
        <select {...a}>
          <option value="">{t("plugin_case.nobody")}</option>
          {options.staff.map((s) => (
            <option key={s.id} value={String(s.id)}>
              {s.name}
            </option>
          ))}
        </select>
      ))}
      {row("due_date", t("plugin_case.field.dueDate"), (a) => (
        <input {...a} type="date" />
      ))}
    </>
  );
}
