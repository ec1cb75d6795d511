// /chat: start an internal conversation with colleagues (Workspace). A plain form.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { guardPluginRoute } from "~/context.server";
import { createConversation, staffList } from "~/conversation/model.server";
import { MAX_MESSAGE_LENGTH } from "~/conversation/constants";
import { formError, formValues, useFormResult, valueList } from "~/forms";
import { refuse } from "~/forms.server";

const startSchema = z.object({
  title: z.string().trim().min(1, "chat.titleRequired").max(200),
  message: z.string().trim().min(1, "chat.messageRequired").max(MAX_MESSAGE_LENGTH),
  // checkboxes, one username per line
  people: z.string().transform(valueList).pipe(z.array(z.string()).min(1, "chat.peopleRequired")),
});

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const staff = (await staffList()).filter((s) => s.id !== ctx.user!.id);
  return json({ staff });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const form = await request.formData();
  const values = formValues(form, ["title", "message", "people"]);
  const parsed = startSchema.safeParse(values);
  if (!parsed.success) return refuse(formError(parsed.error, values));
  const chat = await createConversation(ctx.user!, { channel: "chat", title: parsed.data.title, body: parsed.data.message, usernames: parsed.data.people });
  return redirect(`/chat/${chat.ticketNumber}`);
}

export default function StartChat() {
  const { staff } = useLoaderData<typeof loader>();
  const failed = useFormResult();
  // one line above the form: the first field's error
  const error = failed && (failed.message ?? Object.values(failed.errors)[0]);
  const { t } = useTranslation();
  return (
    <section className="stack narrow-wide">
      <h1>{t("chat.title")}</h1>
      <Form method="post" className="stack">
        {error ? (
          <p className="form-error" role="alert">
            {t(error)}
          </p>
        ) : null}
        <label>
          {t("chat.subject")}
          <input name="title" maxLength={200} defaultValue={failed?.values.title} />
        </label>
        <fieldset>
          <legend>{t("chat.people")}</legend>
          {staff.map((s) => (
            <label key={s.username} className="inline">
              <input type="checkbox" name="people" value={s.username} defaultChecked={valueList(failed?.values.people).includes(s.username)} /> {s.name}
            </label>
          ))}
        </fieldset>
        <label>
          {t("chat.message")}
          <textarea name="message" rows={4} defaultValue={failed?.values.message} />
        </label>
        <button type="submit" className="button primary">
          {t("chat.start")}
        </button>
      </Form>
    </section>
  );
}
