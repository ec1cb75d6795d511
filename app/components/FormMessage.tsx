// The form-level message of a refused post (FormResult.message), announced to screen readers.
import { useTranslation } from "react-i18next";
import type { FormResult } from "~/forms";

export function FormMessage({ result }: { result: Pick<FormResult, "message" | "messageValues"> | null | undefined }) {
  const { t } = useTranslation();
  if (!result?.message) return null;
  return (
    <p className="form-error" role="alert">
      {t(result.message, result.messageValues)}
    </p>
  );
}
