// A due date as DD/MM/YYYY (spec section 9); an overdue one says so in words, not by colour alone.
import { useTranslation } from "react-i18next";

export function DueDate({ day, overdue }: { day: string | null; overdue: boolean }) {
  const { t } = useTranslation();
  if (!day) return <span className="muted">{t("plugin_case.noDueDate")}</span>;
  const [y, m, d] = day.split("-");
  return (
    <>
      <time dateTime={day}>{`${d}/${m}/${y}`}</time>
      {overdue ? <strong className="field-error case-overdue">{` ${t("plugin_case.overdue")}`}</strong> : null}
    </>
  );
}
