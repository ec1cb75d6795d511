// /case/{number}: one case. Its title, type, status, owner and due date (editable); its tickets with
// title, channel and status, only those the viewer may read (the others counted); a ticket attached
// by its number, detached with a button; notes; and the case's history. Every form is a plain post
// that works without JavaScript; a refusal shows beside its form and keeps what was typed.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { TableScroll } from "~/components/TableScroll";
import { conversationPath } from "~/conversation/channels";
import { staffList } from "~/conversation/model.server";
import { formResult, formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { formatDate, formatTime } from "~/time";
import { addCaseNote, attachTicket, caseDetail, caseTypes, detachTicket, updateCase } from "../case.server";
import { CaseFields } from "../components/CaseFields";
import { DueDate } from "../components/DueDate";
import { requireCaseUser } from "../guard.server";
import { CASE_FIELDS, NOTE_MAX } from "../limits";
import { formWriteOnce } from "~/request-keys.server";
import { ChannelName } from "~/components/ChannelName";

const caseNumber = (raw: string | undefined) => {
  if (!/^\d{1,15}$/.test(raw ?? "")) throw new Response("Not Found", { status: 404 });
  return Number(raw);
};

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const ctx = await requireCaseUser(request, context);
  const number = caseNumber(params.number);
  const timeZone = ctx.workspace.timeZone;
  const [detail, types, staff] = await Promise.all([caseDetail(ctx.user, number, timeZone), caseTypes(), staffList()]);
  if (!detail) throw new Response("Not Found", { status: 404 });
  return json({ detail, types, staff: staff.map((s) => ({ id: s.id, name: s.name })), timeZone }, { headers: { "Cache-Control": "private, no-store" } });
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { user } = await requireCaseUser(request, context);
  const number = caseNumber(params.number);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const fields = formValues(form);
  const write = () => {
    switch (intent) {
      case "edit":
        return updateCase(user, number, formValues(form, CASE_FIELDS), form.has("version") ? Number(form.get("version")) : undefined);
      case "attach":
        return attachTicket(user, number, String(form.get("ticket") ?? ""));
      case "detach":
        return detachTicket(user, number, Number(form.get("ticket_id")));
      case "note":
        return addCaseNote(user, number, String(form.get("body") ?? ""));
      default:
        return Promise.resolve({ ok: false as const, result: formResult({ message: "conversation.badInput" }), status: 400 });
    }
  };
  const outcome = await formWriteOnce<object>(request, user.id, "case", intent, fields, write);
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  return redirect(`/case/${number}`);
}

export const meta = pageMeta("plugin_case.detail.title");

/** A history entry in words: who did what, when. */
function historyText(t: TFunction, h: { action: string; detail: string; by: string | null }) {
  const by = h.by ?? t("plugin_case.someone");
  const detail = h.action === "status" ? t(`plugin_case.status.${h.detail}`) : h.detail;
  if ((h.action === "owner" || h.action === "type" || h.action === "due") && !h.detail) return t(`plugin_case.history.${h.action}Cleared`, { by });
  return t(`plugin_case.history.${h.action}`, { by, detail });
}

export default function CaseDetailPage() {
  const { detail: c, types, staff, timeZone } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const edit = useFormResult("edit");
  const attach = useFormResult("attach");
  const detach = useFormResult("detach");
  const note = useFormResult("note");
  const when = (at: number) => `${formatDate(at, timeZone)} ${formatTime(at, timeZone)}`;
  const initial = {
    title: c.title,
    case_type: c.caseTypeId ? String(c.caseTypeId) : "",
    status: c.status,
    owner: c.ownerUserId ? String(c.ownerUserId) : "",
    due_date: c.dueDate ?? "",
  };

  return (
    <section className="stack case-page" data-testid="case-detail" data-status={c.status}>
      <p>
        <Link to="/case">{t("plugin_case.back")}</Link>
      </p>
      <h1>{t("plugin_case.detail.heading", { number: c.number, title: c.title })}</h1>
      <dl className="case-summary">
        <dt>{t("plugin_case.field.status")}</dt>
        <dd data-testid="case-status">{t(`plugin_case.status.${c.status}`)}</dd>
        <dt>{t("plugin_case.field.type")}</dt>
        <dd>{c.type ?? t("plugin_case.none")}</dd>
        <dt>{t("plugin_case.field.owner")}</dt>
        <dd>{c.owner ?? t("plugin_case.nobody")}</dd>
        <dt>{t("plugin_case.field.dueDate")}</dt>
        <dd>
          <DueDate day={c.dueDate} overdue={c.overdue} />
        </dd>
        <dt>{t("plugin_case.field.createdBy")}</dt>
        <dd>{`${c.createdBy ?? t("plugin_case.someone")}, ${when(c.createdAt)}`}</dd>
      </dl>

      <section className="card stack" aria-labelledby="case-edit">
        <h2 id="case-edit">{t("plugin_case.detail.edit")}</h2>
        <Form method="post" noValidate className="stack narrow" key={refusalKey(edit, location.key)}>
          <RequestKeyInput />
          <input type="hidden" name="intent" value="edit" />
          <input type="hidden" name="version" value={c.updatedAt} />
          <FormMessage result={edit} />
          <CaseFields options={{ types, staff }} initial={initial} failed={edit} withStatus />
          <div>
            <button type="submit" className="button primary" disabled={busy}>
              {t("plugin_case.detail.save")}
            </button>
          </div>
        </Form>
      </section>

      <section className="stack" aria-labelledby="case-tickets">
        <h2 id="case-tickets">{t("plugin_case.detail.tickets", { count: c.ticketCount })}</h2>
        <FormMessage result={detach} />
        {c.tickets.length ? (
          <TableScroll label={t("plugin_case.detail.tickets", { count: c.ticketCount })}>
            <table className="payment-table case-tickets">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_case.field.ticket")}</th>
                  <th scope="col">{t("plugin_case.field.title")}</th>
                  <th scope="col">{t("plugin_case.field.channel")}</th>
                  <th scope="col">{t("plugin_case.field.status")}</th>
                  <th scope="col">
                    <span className="sr-only">{t("plugin_case.detail.actions")}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {c.tickets.map((tk) => (
                  <tr key={tk.id} data-testid={`case-ticket-${tk.number}`}>
                    <td>
                      <Link to={conversationPath(tk.kind, tk.number)}>#{tk.number}</Link>
                    </td>
                    <td>{tk.title}</td>
                    <td>
                      <ChannelName channel={tk.channel} className="channel-name" />
                    </td>
                    <td>{t(`ticketStatus.${tk.status}`, { defaultValue: t("ticketStatus.unknown") })}</td>
                    <td>
                      <Form method="post">
                        <RequestKeyInput />
                        <input type="hidden" name="intent" value="detach" />
                        <input type="hidden" name="ticket_id" value={tk.id} />
                        <button type="submit" className="button" disabled={busy} aria-label={t("plugin_case.detail.detachTicket", { ticket: tk.number })}>
                          {t("plugin_case.detail.detach")}
                        </button>
                      </Form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : null}
        {c.hiddenTickets ? (
          <p className="muted" data-testid="case-hidden-tickets">
            {t("plugin_case.detail.hiddenTickets", { count: c.hiddenTickets })}
          </p>
        ) : null}
        {!c.ticketCount ? <p className="muted">{t("plugin_case.detail.noTickets")}</p> : null}
        <Form method="post" noValidate className="inline-form" key={refusalKey(attach, location.key)}>
          <RequestKeyInput />
          <input type="hidden" name="intent" value="attach" />
          <label htmlFor="case-attach">{t("plugin_case.detail.attachLabel")}</label>
          <input
            id="case-attach"
            name="ticket"
            type="text"
            inputMode="numeric"
            autoComplete="off"
            defaultValue={attach?.values.ticket ?? ""}
            aria-invalid={!!attach?.errors.ticket}
            aria-describedby={attach?.errors.ticket ? "case-attach-error" : undefined}
          />
          <button type="submit" className="button" disabled={busy}>
            {t("plugin_case.detail.attach")}
          </button>
        </Form>
        {attach?.errors.ticket ? (
          <p id="case-attach-error" className="field-error" role="alert">
            {t(attach.errors.ticket, attach.messageValues)}
          </p>
        ) : null}
        <FormMessage result={attach} />
      </section>

      <section className="stack" aria-labelledby="case-notes">
        <h2 id="case-notes">{t("plugin_case.detail.notes")}</h2>
        <Form method="post" noValidate className="stack narrow" key={refusalKey(note, location.key)}>
          <RequestKeyInput />
          <input type="hidden" name="intent" value="note" />
          <FormMessage result={note} />
          <label htmlFor="case-note">{t("plugin_case.detail.noteLabel")}</label>
          <textarea
            id="case-note"
            name="body"
            rows={3}
            maxLength={NOTE_MAX}
            defaultValue={note?.values.body ?? ""}
            aria-invalid={!!note?.errors.body}
            aria-describedby={note?.errors.body ? "case-note-error" : undefined}
          />
          {note?.errors.body ? (
            <p id="case-note-error" className="field-error">
              {t(note.errors.body, note.messageValues)}
            </p>
          ) : null}
          <div>
            <button type="submit" className="button" disabled={busy}>
              {t("plugin_case.detail.addNote")}
            </button>
          </div>
        </Form>
        {c.notes.length ? (
          <ul className="case-notes">
            {c.notes.map((n) => (
              <li key={n.id} data-testid="case-note">
                <p className="muted">{`${n.by ?? t("plugin_case.someone")}, ${when(n.at)}`}</p>
                <p style={{ whiteSpace: "pre-wrap" }}>{n.body}</p>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">{t("plugin_case.detail.noNotes")}</p>
        )}
      </section>

      <section className="stack" aria-labelledby="case-history">
        <h2 id="case-history">{t("plugin_case.detail.history")}</h2>
        <ol className="case-history">
          {c.history.map((h) => (
            <li key={h.id} data-testid="case-history">
              <time dateTime={new Date(h.at).toISOString()}>{when(h.at)}</time> {historyText(t, h)}
            </li>
          ))}
        </ol>
      </section>
    </section>
  );
}
