// The new-appointment form (/calendar/new and /calendar/{contact}): a plain post; the request key
// makes a double submit book one appointment.
import { Form, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { refusalKey, useFormResult } from "~/forms";
import { AppointmentFields } from "./AppointmentFields";

export function NewAppointmentForm({ initial }: { initial: Record<string, string> }) {
  const { t } = useTranslation();
  const failed = useFormResult();
  const location = useLocation();
  const navigation = useNavigation();
  return (
    <Form method="post" noValidate className="stack narrow" key={refusalKey(failed, location.key)}>
      <RequestKeyInput />
      <FormMessage result={failed} />
      <AppointmentFields initial={initial} failed={failed} />
      <div>
        <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
          {t("plugin_calendar.new.create")}
        </button>
      </div>
    </Form>
  );
}
