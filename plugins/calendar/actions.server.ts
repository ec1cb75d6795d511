// The new-appointment form's post, shared by /calendar/new and /calendar/{contact}: a refusal keeps
// what was typed; a saved one opens its page, which warns when it is in the past or on a holiday.
import { redirect } from "@remix-run/node";
import { formValues } from "~/forms";
import { refuse } from "~/forms.server";
import { createAppointment, FIELDS } from "./calendar.server";
import { requireCalendarUser } from "./guard.server";
import { formWriteOnce } from "~/request-keys.server";

export async function createFromForm(request: Request, context: object | undefined) {
  const { user, workspace } = await requireCalendarUser(request, context);
  const form = await request.formData();
  const values = formValues(form, FIELDS);
  const outcome = await formWriteOnce(request, user.id, "calendar", "create", formValues(form), () => createAppointment(user, values, workspace.timeZone));
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  return redirect(`/calendar/event/${outcome.id}?saved=1`);
}
