// The fields of an article (new and edit), each labelled, its error tied to it (aria-describedby),
// its value what was typed when the post was refused or previewed.
import { useTranslation } from "react-i18next";
import type { FormResult } from "~/forms";
import { BODY_MAX, CATEGORY_MAX, IMAGE_MAX_BYTES, IMAGE_TYPES, KB_LANGS, KB_TYPES, KB_VISIBILITIES, SUMMARY_MAX, TITLE_MAX } from "../limits";

export function ArticleFields({ values, failed }: { values: Record<string, string>; failed: FormResult | null | undefined }) {
  const { t } = useTranslation();
  const errors = failed?.errors ?? {};
  const row = (name: string, label: string, control: (a: Record<string, unknown>) => JSX.Element, help?: string) => {
    const id = `kb-${name}`;
    const described = [errors[name] ? `${id}-error` : "", help ? `${id}-help` : ""].filter(Boolean).join(" ") || undefined;
    return (
      <div className="stack">
        <label htmlFor={id}>{label}</label>
        {control({ id, name, "aria-invalid": !!errors[name] || undefined, "aria-describedby": described })}
        {help ? (
          <p id={`${id}-help`} className="muted">
            {help}
          </p>
        ) : null}
        {errors[name] ? (
          <p id={`${id}-error`} className="field-error">
            {t(errors[name], { size: IMAGE_MAX_BYTES / 1024 / 1024, ...failed?.messageValues })}
          </p>
        ) : null}
      </div>
    );
  };
  const v = (name: string) => values[name] ?? "";
  return (
    <>
      {row("title", t("plugin_kb.field.title"), (a) => (
        <input {...a} type="text" required maxLength={TITLE_MAX} autoComplete="off" defaultValue={v("title")} />
      ))}
      {row("type", t("plugin_kb.field.type"), (a) => (
        <select {...a} defaultValue={v("type") || "kb"}>
          {KB_TYPES.map((x) => (
            <option key={x} value={x}>
              {t(`plugin_kb.type.${x}`)}
            </option>
          ))}
        </select>
      ))}
      {row("lang", t("plugin_kb.field.lang"), (a) => (
        <select {...a} defaultValue={v("lang") || "en"}>
          {KB_LANGS.map((x) => (
            <option key={x} value={x}>
              {t(`plugin_kb.lang.${x}`)}
            </option>
          ))}
        </select>
      ))}
      {row("category", t("plugin_kb.field.category"), (a) => (
        <input {...a} type="text" maxLength={CATEGORY_MAX} defaultValue={v("category")} />
      ))}
      {row("visibility", t("plugin_kb.field.visibility"), (a) => (
        <select {...a} defaultValue={v("visibility") || "public"}>
          {KB_VISIBILITIES.map((x) => (
            <option key={x} value={x}>
              {t(`plugin_kb.visibility.${x}`)}
            </option>
          ))}
        </select>
      ))}
      {row(
        "summary",
        t("plugin_kb.field.summary"),
        (a) => (
          <input {...a} type="text" maxLength={SUMMARY_MAX} defaultValue={v("summary")} />
        ),
        t("plugin_kb.help.summary"),
      )}
      {row(
        "body",
        t("plugin_kb.field.body"),
        (a) => (
          <textarea {...a} rows={16} required maxLength={BODY_MAX} defaultValue={v("body")} />
        ),
        t("plugin_kb.help.body"),
      )}
      {row(
        "image",
        t("plugin_kb.field.image"),
        (a) => (
          <input {...a} type="file" accept={IMAGE_TYPES.join(",")} />
        ),
        t("plugin_kb.help.image", { size: IMAGE_MAX_BYTES / 1024 / 1024 }),
      )}
    </>
  );
}
