// /chat: start an internal conversation with colleagues (Workspace). A plain form.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { guardPluginRoute } from "~/context.server";
import { createConversation, staffList } from "~/conversation/model.server";
import { MAX_MESSAGE_LENGTH } from "~/conversation/constants";

const startSchema = z.object({
  title: z.string().trim().min(1, "chat.titleRequired").max(200),
  message: z.string().trim().min(1, "chat.messageRequired").max(MAX_MESSAGE_LENGTH),
  people: z.array(z.string()).min(1, "chat.peopleRequired"),
});

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const staff = (await staffList()).filter((s) => s.id !== ctx.user!.id);
  return json({ staff });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  const form = await request.formData();
  const values = { title: String(form.get("title") ?? ""), message: String(form.get("message") ?? ""), people: form.getAll("people").map(String) };
  const parsed = startSchema.safeParse(values);
  if (!parsed.success) return json({ error: parsed.error.issues[0].message, values }, { status: 400 });
  const chat = await createConversation(ctx.user!, { channel: "chat", title: parsed.data.title, body: parsed.data.message, usernames: parsed.data.people });
  return redirect(`/chat/${chat.ticketNumber}`);
}

export default function StartChat() {
  const { staff } = useLoaderData<typeof loader>();
  const failed = useActionData<typeof action>();
  const { t } = useTranslation();
  return (
    <section className="stack narrow-wide">
      <h1>{t("chat.title")}</h1>
      <Form method="post" className="stack">
        {failed?.error ? (
          <p className="form-error" role="alert">
            {t(failed.error)}
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
              <input type="checkbox" name="people" value={s.username} defaultChecked={failed?.values.people.includes(s.username)} /> {s.name}
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
