// The fields of the call pages' GET filter forms (/call, /call_verification): a label per field, and
// aria-invalid with the form's error when its value was refused (the value stays as typed).
import type { InputHTMLAttributes } from "react";
import { useTranslation } from "react-i18next";

type FilterProps = { field: string; value: string; invalid: string[] };

/** One filter of the GET form: its label, and aria-invalid with the error when its value was refused. */
export function FilterInput({ field, value, invalid, ...input }: FilterProps & Omit<InputHTMLAttributes<HTMLInputElement>, "value">) {
  const { t } = useTranslation();
  const bad = invalid.includes(field);
  return (
    <div className="stack">
      <label htmlFor={`call-filter-${field}`}>{t(`plugin_calls.filters.${field}`)}</label>
      <input
        id={`call-filter-${field}`}
        name={field}
        defaultValue={value}
        aria-invalid={bad || undefined}
        aria-describedby={bad ? "call-filter-error" : undefined}
        {...input}
      />
    </div>
  );
}

export function FilterSelect({ field, value, invalid, options }: FilterProps & { options: [string, string][] }) {
  const { t } = useTranslation();
  const bad = invalid.includes(field);
  // a refused value stays visible as typed, so the user sees what was wrong
  const all = bad && value && !options.some(([v]) => v === value) ? [[value, value] as [string, string], ...options] : options;
  return (
    <div className="stack">
      <label htmlFor={`call-filter-${field}`}>{t(`plugin_calls.filters.${field}`)}</label>
      <select
        id={`call-filter-${field}`}
        name={field}
        defaultValue={value}
        aria-invalid={bad || undefined}
        aria-describedby={bad ? "call-filter-error" : undefined}
      >
        <option value="">{t("plugin_calls.list.any")}</option>
        {all.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
