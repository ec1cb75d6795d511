// The fields of a campaign (new and edit), each labelled, its help and error tied to it
// (aria-describedby), its value what was typed when the post was refused.
import { useTranslation } from "react-i18next";
import type { FormResult } from "~/forms";
import { NAME_MAX, PER_MINUTE_DEFAULT, PER_MINUTE_MAX, QUERY_MAX, TEMPLATE_MAX, type CampaignFields as Fields } from "../limits";

export interface AccountOption {
  id: number;
  name: string;
  address: string;
  kind: string;
}

export function CampaignFields({ accounts, initial, failed }: { accounts: AccountOption[]; initial: Partial<Fields>; failed: FormResult | undefined }) {
  const { t } = useTranslation();
  const errors = failed?.errors ?? {};
  const value = (name: keyof Fields, fallback = "") => failed?.values[name] ?? (initial[name] || fallback);
  const row = (name: keyof Fields, label: string, control: (a: Record<string, unknown>) => JSX.Element, help?: string) => {
    const id = `campaign-${name}`;
    const describedBy = [help ? `${id}-help` : "", errors[name] ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
    return (
      <div className="stack">
        <label htmlFor={id}>{label}</label>
        {control({ id, name, "aria-invalid": !!errors[name], "aria-describedby": describedBy })}
        {help ? (
          <p id={`${id}-help`} className="muted">
            {help}
          </p>
        ) : null}
        {errors[name] ? (
          <p id={`${id}-error`} className="field-error">
            {t(errors[name], { max: name === "perMinute" ? PER_MINUTE_MAX : name === "template" ? TEMPLATE_MAX : QUERY_MAX, ...failed?.messageValues })}
          </p>
        ) : null}
      </div>
    );
  };
  const audience = value("audience", "all");
  return (
    <>
      {row("name", t("plugin_campaign.field.name"), (a) => (
        <input {...a} type="text" required maxLength={NAME_MAX} autoComplete="off" defaultValue={value("name")} />
      ))}
      {row(
        "account",
        t("plugin_campaign.field.account"),
        (a) => (
          <select {...a} defaultValue={value("account", String(accounts[0]?.id ?? ""))}>
            {accounts.map((account) => (
              <option key={account.id} value={String(account.id)}>
                {`${account.name} (${account.kind}, ${account.address})`}
              </option>
            ))}
          </select>
        ),
        t("plugin_campaign.field.accountHelp"),
      )}
      {row(
        "template",
        t("plugin_campaign.field.template"),
        (a) => (
          <textarea {...a} rows={5} required maxLength={TEMPLATE_MAX} defaultValue={value("template")} />
        ),
        t("plugin_campaign.field.templateHelp", { nameTag: "{{name}}", salutationTag: "{{salutation}}" }),
      )}
      <fieldset className="stack">
        <legend>{t("plugin_campaign.field.audience")}</legend>
        <label>
          <input type="radio" name="audience" value="all" defaultChecked={audience !== "search"} /> {t("plugin_campaign.audience.all")}
        </label>
        <label>
          <input type="radio" name="audience" value="search" defaultChecked={audience === "search"} /> {t("plugin_campaign.audience.search")}
        </label>
        {errors.audience ? <p className="field-error">{t(errors.audience)}</p> : null}
      </fieldset>
      {row(
        "query",
        t("plugin_campaign.field.query"),
        (a) => (
          <input {...a} type="search" maxLength={QUERY_MAX} autoComplete="off" defaultValue={value("query")} />
        ),
        t("plugin_campaign.field.queryHelp"),
      )}
      {row(
        "startsAt",
        t("plugin_campaign.field.startsAt"),
        (a) => (
          <input {...a} type="datetime-local" defaultValue={value("startsAt")} />
        ),
        t("plugin_campaign.field.startsAtHelp"),
      )}
      {row("perMinute", t("plugin_campaign.field.perMinute"), (a) => (
        <input {...a} type="number" min={1} max={PER_MINUTE_MAX} required defaultValue={value("perMinute", String(PER_MINUTE_DEFAULT))} />
      ))}
    </>
  );
}
