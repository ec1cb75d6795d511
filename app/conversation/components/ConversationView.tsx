import { Form, Link, useLocation, useNavigation } from "@remix-run/react";
import { memo, useEffect, useRef } from "react";
import { useTranslation } from "react-i18next";
import { deliveryErrorText } from "~/conversation/delivery";
import { REACTIONS } from "~/conversation/constants";
import { listParams, listSearch } from "~/list-params";
import { useFormResult } from "~/forms";
import { TypingIndicator, useConversationRoom, useDeliveryState, useLive, useLiveMessages, useTypingEmitter } from "~/conversation/components/LiveConversation";
import type { ConversationData } from "../page.server";
import type { PanelText } from "../panels.server";
import { FormMessage } from "~/components/FormMessage";
import { ProfileLink } from "~/accounts/components/ProfileCard";
import { ImageLink, ImageViewer, type ViewerImage } from "./ImageViewer";
import { useMessageTarget } from "./message-target";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { REQUEST_KEY_FIELD_NAME } from "~/request-key-field";
import { useResendWhenLost } from "~/conversation/send-retry";
import { LabelChip, LabelDot } from "~/components/LabelChip";
import { shortcutTarget } from "~/shortcuts";
import { focusList } from "~/components/list-focus";
import { ChannelName } from "~/components/ChannelName";

type Data = ConversationData;
type Message = Data["messages"][number];

const fileUrlOf = (m: Message) => (m.file ? `/files/v101/${m.id}/${encodeURIComponent(m.file.name)}` : "");
/** An image message or an image attachment, as the viewer shows it; null for anything else. */
const viewerImage = (m: Message): ViewerImage | null =>
  m.file && m.html === null && (m.type === "image" || m.file.type.startsWith("image/"))
    ? { messageId: m.id, url: fileUrlOf(m), name: m.file.name, sender: m.sender }
    : null;
/** The conversation's images in the order shown, for the viewer's previous and next. */
const imagesOf = (messages: Message[]) => messages.map(viewerImage).filter((i): i is ViewerImage => i !== null);

/** A hidden field naming what a form does. */
// every form of the conversation names its write, so sending it twice changes nothing twice (ADR 045)
const Intent = ({ value, keptKey }: { value: string; keptKey?: string }) => (
  <>
    <input type="hidden" name="intent" value={value} />
    <RequestKeyInput kept={keptKey} />
  </>
);

/** A one-button form: the intent, its hidden fields, the button. */
function ActionButton(props: { intent: string; fields: Record<string, string | number>; label: string; ariaLabel?: string; danger?: boolean }) {
  return (
    <Form method="post" className="inline">
      <Intent value={props.intent} />
      {Object.entries(props.fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={props.danger ? "link-button danger" : "link-button"} aria-label={props.ariaLabel}>
        {props.label}
      </button>
    </Form>
  );
}

/** `extra`: controls of a kind of conversation (the live chat desk's), under the header. */
export function ConversationView({ data, extra }: { data: Data; extra?: React.ReactNode }) {
  const { t } = useTranslation();
  const location = useLocation();
  // new messages arrive over the socket when the page shows the newest ones
  const newest = !/[?&](before|message_id)=/.test(location.search);
  const messages = useLiveMessages(data.ticket.id, data.messages, newest);
  const sentAfter = useRef(0);
  const days: { day: string; messages: Message[] }[] = [];
  for (const m of messages) {
    const last = days.at(-1);
    if (last?.day === m.day) last.messages.push(m);
    else days.push({ day: m.day, messages: [m] });
  }
  useConversationRoom(data.ticket.id);
  const live = useLive(data.ticket.id);
  const oldest = data.messages[0]?.id;
  // a refused small form (status, note, ...) shows its message here; the reply's shows in its form
  const result = useFormResult();
  const older = listParams(location.search);
  if (oldest) older.set("before", String(oldest));
  // ?message_id=: that message is marked, focused and scrolled to (on the server too: autofocus)
  const target = useMessageTarget(data.messages);
  useFocusAfterSubmit(data.ticket.status);
  return (
    <div
      className="conversation"
      data-live={live}
      // read by the end-to-end encryption's script (plugins/e2ee), which opens and seals messages in the browser
      data-ticket-id={data.ticket.id}
      data-encryption={data.ticket.encryption?.method}
      data-key-version={data.ticket.encryption?.version}
      data-rekey={data.ticket.encryption?.rekey ? "1" : undefined}
    >
      <header className="conversation-head">
        {/* shown on phones, where the list is not beside the conversation; keeps the list's filters */}
        <Link to={`/ticket${listSearch(location.search)}`} className="back-link">
          {t("shell.backToList")}
        </Link>
        <h1>
          <span className="muted">#{data.ticket.number}</span> {data.ticket.title}
        </h1>
        <p className="muted">
          <ChannelName channel={data.ticket.channel} className="channel-name" /> ·{" "}
          <span className="contact">
            {/* isolated: a customer's right-to-left name (or an override in it) does not reorder the text after it */}
            <bdi>{data.ticket.contactName}</bdi>
            {data.ticket.contactEmail ? ` <${data.ticket.contactEmail}>` : ""}
          </span>
          {data.ticket.encryption ? (
            <>
              {" "}
              · <span className="badge">{t("conversation.encryption.badge")}</span>
            </>
          ) : null}
        </p>
      </header>
      {extra}
      {result?.message && result.intent !== "reply" ? (
        <p className="form-error" role="alert">
          {t(result.message, result.messageValues)}
        </p>
      ) : null}
      {data.toast?.startsWith("priority-") ? (
        <p className="notice" role="status">
          {t("conversation.priorityMarked", { priority: t(`priority.${data.toast.slice("priority-".length)}`) })}
        </p>
      ) : null}
      <div className="conversation-body">
        <section className="messages" aria-label={t("conversation.messages")}>
          {data.hasOlder && oldest ? (
            <Link className="load-older" to={`${location.pathname}?${older}`}>
              {t("conversation.loadOlder")}
            </Link>
          ) : null}
          {days.map((d) => (
            <section key={d.day} className="day" aria-label={d.day}>
              <h2 className="day-head">
                <span>{d.day}</span> <span className="muted">{t("conversation.dayCount", { count: d.messages.length })}</span>
              </h2>
              <ol className="message-list">
                {d.messages.map((m) => (
                  <li
                    key={m.id}
                    id={`m-${m.id}`}
                    {...(m.id === target ? { className: "message-target", tabIndex: -1, autoFocus: true, "aria-current": "true" as const } : {})}
                  >
                    <MessageItem message={m} data={data} />
                  </li>
                ))}
              </ol>
            </section>
          ))}
          {messages.length === 0 ? <p className="muted">{t("conversation.noMessages")}</p> : null}
          <SendState messages={messages} me={data.me.id} sentAfter={sentAfter} />
          <TypingIndicator ticketId={data.ticket.id} />
          {/* where a plugin's script puts what it says about the reply (the encryption's missing key, a changed key) */}
          <div className="composer-slot" data-composer-slot aria-live="polite" />
          <ReplyForm data={data} onSubmit={() => (sentAfter.current = messages.at(-1)?.id ?? 0)} />
        </section>
        <Properties data={data} />
      </div>
      <ImageViewer images={imagesOf(messages)} />
    </div>
  );
}

/** A link's preview (fetched on the server, stored; React escapes every text). Its image is not shown: the page loads no remote images. */
function LinkPreviewCard({ preview: p }: { preview: Message["previews"][number] }) {
  return (
    <a className="link-preview" href={p.url} target="_blank" rel="noopener noreferrer nofollow">
      <span className="link-preview-host muted">{p.host}</span>
      {p.title ? <strong className="link-preview-title">{p.title}</strong> : null}
      {p.description ? <span className="link-preview-description">{p.description}</span> : null}
    </a>
  );
}

// memo: a message arriving over the socket renders itself, not every message and form again
const MessageItem = memo(function MessageItem({ message: m, data }: { message: Message; data: Data }) {
  const { t } = useTranslation();
  if (m.system) return <p className="system-message">{systemText(t, m.system)}</p>;
  const mine = m.senderUserId === data.me.id;
  const fileUrl = fileUrlOf(m);
  const image = viewerImage(m);
  return (
    <article
      className={`message${mine ? " mine" : ""}${m.senderUserId ? " staff" : " customer"}`}
      aria-label={t("conversation.messageFrom", { name: m.bot ? t("conversation.bot") : m.sender })}
    >
      <header>
        <strong>{m.bot ? t("conversation.bot") : m.senderUserId ? m.sender : <ProfileLink ticket={data.ticket.number}>{m.sender}</ProfileLink>}</strong>
        <time dateTime={new Date(m.createdAt).toISOString()} className="muted">
          {m.time}
        </time>
        {m.pinned ? <span className="badge">{t("conversation.pinned")}</span> : null}
      </header>
      {m.email ? <EmailMeta email={m.email} /> : null}
      {m.reply ? (
        <blockquote className="reply-quote">
          <a href={`#m-${m.reply.id}`}>{m.reply.sender}</a>: {m.reply.encrypted ? t("conversation.encryption.message") : m.reply.body}
        </blockquote>
      ) : null}
      {m.encrypted ? (
        // opened in the browser by plugins/e2ee (which replaces the text); the server cannot read it
        <div
          className="encrypted-body"
          data-e2ee-message={m.id}
          data-e2ee-cipher={m.encrypted.cipher}
          data-e2ee-version={m.encrypted.version}
          data-e2ee-client-id={m.encrypted.clientId}
          data-e2ee-file={m.file ? fileUrlOf(m) : undefined}
        >
          <p className="text-body muted" data-e2ee-text>
            {t("conversation.encryption.needsJs")}
          </p>
        </div>
      ) : m.html !== null ? (
        <div className="html-body" dangerouslySetInnerHTML={{ __html: m.html }} />
      ) : image && m.type === "image" ? (
        <ImageLink image={image}>
          <img src={fileUrl} alt={image.name} className="message-image" loading="lazy" />
        </ImageLink>
      ) : image ? (
        <ImageLink image={image} className="file-link">
          {image.name} ({Math.max(1, Math.round(m.file!.size / 1024))} KB)
        </ImageLink>
      ) : m.file ? (
        <a href={fileUrl} className="file-link" download>
          {m.file.name} ({Math.max(1, Math.round(m.file.size / 1024))} KB)
        </a>
      ) : null}
      {/* a customer's text whose file came later: the text is the file's caption */}
      {m.file && !m.encrypted && m.html === null && m.body && m.body !== m.file.name ? <p className="text-body">{m.body}</p> : null}
      {m.encrypted || m.html !== null || m.file ? null : (
        <>
          <p className="text-body">{m.body}</p>
          {m.previews.map((p) => (
            <LinkPreviewCard key={p.url} preview={p} />
          ))}
          {m.email?.quoted ? (
            <details className="quoted-history">
              <summary>{t("conversation.email.quoted")}</summary>
              <p className="quoted-text">{m.email.quoted}</p>
            </details>
          ) : null}
        </>
      )}
      {m.fileState ? (
        <p className="muted file-state" data-testid="file-state" role="note">
          {t(`conversation.fileState.${m.fileState}`)}
        </p>
      ) : null}
      {m.deliveryState ? <Delivery message={m} /> : null}
      {m.reactions.length ? (
        <p className="reactions">
          {m.reactions.map((r) => (
            <span key={r.reaction} title={r.usernames.join(", ")}>
              {r.reaction} {r.usernames.length}
            </span>
          ))}
        </p>
      ) : null}
      {m.readBy.length ? <p className="muted read-by">{t("conversation.readBy", { names: m.readBy.join(", ") })}</p> : null}
      {m.notes.length ? (
        <ul className="notes" aria-label={t("conversation.notes")}>
          {m.notes.map((n) => (
            <li key={n.id}>
              <strong>{n.author}</strong>:{" "}
              {n.encrypted ? (
                // opened in the browser by plugins/e2ee, like an encrypted message (bound to this message)
                <span
                  data-e2ee-note={n.id}
                  data-e2ee-on={m.id}
                  data-e2ee-cipher={n.encrypted.cipher}
                  data-e2ee-version={n.encrypted.version}
                  data-e2ee-client-id={n.encrypted.clientId}
                >
                  <span className="muted" data-e2ee-text>
                    {t("conversation.encryption.needsJs")}
                  </span>
                </span>
              ) : (
                n.body
              )}
              {n.userId === data.me.id || data.me.type === "admin" ? (
                <ActionButton intent="delete_note" fields={{ note_id: n.id }} label={t("conversation.deleteNote")} />
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <details className="message-actions">
        <summary>{t("conversation.actions")}</summary>
        <div className="message-actions-body">
          <Link to={`?reply=${m.id}#reply`}>{t("conversation.replyTo")}</Link>
          <Form method="post" className="inline">
            <Intent value="react" />
            <input type="hidden" name="message_id" value={m.id} />
            {REACTIONS.map((r) => (
              <button key={r} type="submit" name="reaction" value={r} className="icon-button" aria-label={t("conversation.react", { reaction: r })}>
                {r}
              </button>
            ))}
          </Form>
          {m.senderUserId ? null : <ChannelReactionNote rules={data.channelReactions} channel={data.ticket.channel} />}
          <ActionButton intent="pin" fields={{ message_id: m.id }} label={m.pinned ? t("conversation.unpin") : t("conversation.pin")} />
          {mine || data.me.type === "admin" ? (
            <ActionButton intent="delete_message" fields={{ message_id: m.id }} label={t("conversation.delete")} danger />
          ) : null}
          {/* in an end-to-end encrypted conversation plugins/e2ee seals the note in the browser (data-e2ee-note-form); without JavaScript it is refused */}
          <Form method="post" className="note-form" data-e2ee-note-form={data.ticket.encryption ? m.id : undefined}>
            <Intent value="note" />
            <input type="hidden" name="message_id" value={m.id} />
            <label>
              {t("conversation.addNote")}
              <input name="note" maxLength={2000} />
            </label>
            <button type="submit" className="button">
              {t("conversation.saveNote")}
            </button>
          </Form>
        </div>
      </details>
    </article>
  );
});

/** Under the reactions to a customer's message: what of them reaches the customer on their channel (none on LINE; not Telegram's unlisted ones). */
function ChannelReactionNote({ rules, channel }: { rules: ConversationData["channelReactions"]; channel: string }) {
  const { t } = useTranslation();
  if (!rules) return null;
  const name = t(`channel.${channel}`);
  if (!rules.sent) return <p className="muted">{t("conversation.reactionsNotSent", { channel: name })}</p>;
  if (!rules.refused.length) return null;
  return <p className="muted">{t("conversation.reactionsRefused", { channel: name, reactions: rules.refused.join(" ") })}</p>;
}

/**
 * How far an agent's message on a channel got. Visible text in a polite live region (a failure in
 * the history is not an alert); a failed one has Retry, a plain form.
 */
function Delivery({ message }: { message: Message }) {
  const { t } = useTranslation();
  const { state, error } = useDeliveryState(message);
  let text: string;
  const reason = deliveryErrorText(t, error);
  if (state === "failed") text = t("conversation.sendFailed", { error: reason });
  else if (state === "waiting") text = t("conversation.delivery.waiting", { reason });
  else if (state === "queued" && error) text = t("conversation.delivery.retrying", { error: reason });
  else text = t(`conversation.delivery.${state}`);
  return (
    <div className="delivery-state" data-delivery={state}>
      <p className={state === "failed" ? "field-error" : "muted"} aria-live="polite">
        {text}
      </p>
      {state === "failed" ? <ActionButton intent="retry_delivery" fields={{ message_id: message.id }} label={t("conversation.retry")} /> : null}
    </div>
  );
}

type TFn = ReturnType<typeof useTranslation>["t"];
function systemText(t: TFn, e: NonNullable<Message["system"]>) {
  switch (e.event) {
    case "status":
      return t("conversation.system.status", { by: e.by, status: t(`ticketStatus.${e.status}`) });
    case "assigned":
      return t("conversation.system.assigned", { by: e.by, who: e.who });
    case "unassigned":
      return t("conversation.system.unassigned", { by: e.by, who: e.who });
    case "livechat":
      return t(`conversation.system.livechat.${e.action}`, { by: e.by });
    case "plugin":
      return t(e.text, { ...Object.fromEntries(Object.entries(e.values).map(([k, v]) => [k, v.startsWith("t:") ? t(v.slice(2)) : v])), by: e.by });
    default:
      return t("conversation.system.priority", { by: e.by, priority: t(`priority.${e.priority || "none"}`) });
  }
}

/**
 * The reply on its way (JavaScript on): "sending" while the form is posted, then either the real
 * message replaces it or it stays as "failed" with Retry, which sends the kept text again.
 */
function SendState({ messages, me, sentAfter }: { messages: Message[]; me: number; sentAfter: React.MutableRefObject<number> }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const failed = useFormResult("reply");
  const sending = navigation.state !== "idle" && navigation.formData?.get("intent") === "reply" ? String(navigation.formData.get("message") ?? "") : null;
  // the reply itself may arrive over the socket before the post's answer (even before the page
  // renders "sending"): then it is shown once, as itself. `sentAfter`: the newest message when
  // the form was submitted.
  const arrived = sending !== null && messages.some((m) => m.id > sentAfter.current && m.senderUserId === me && m.body === sending);
  useResendWhenLost(failed, () => document.getElementById("reply") as HTMLFormElement | null);
  if (sending !== null && !arrived)
    return (
      <article className="message mine staff pending" data-send-state="sending">
        <p className="text-body">{sending}</p>
        <p className="muted">{t("conversation.sending")}</p>
      </article>
    );
  if (failed?.message && failed.values.message)
    return (
      <article className="message mine staff failed" data-send-state="failed">
        <p className="text-body">{failed.values.message}</p>
        <p className="field-error">
          {/* spec section 8: the server's reason inside 'Opps, message failed to send. ...' (an upload's own text says it already) */}
          {failed.message === "conversation.uploadFailed"
            ? t(failed.message, failed.messageValues)
            : t("conversation.sendFailed", { error: t(failed.message, failed.messageValues) })}
        </p>
        <button type="submit" form="reply" className="button">
          {t("conversation.retry")}
        </button>
      </article>
    );
  return null;
}

/** Statuses that finish an agent's work on a conversation (Resolved, Closed): focus goes on to the list. */
const DONE_STATUSES = ["2", "3"];

/**
 * Where focus goes when a form of the conversation is done (JavaScript on; without it the page
 * loads anew): after a reply, back to the reply box (the form is a new one, the old box is gone);
 * after resolving or closing, to the list beside it: this conversation's row if it is still
 * listed, else the first row. Only when focus was lost or is still where the user left it.
 */
function useFocusAfterSubmit(status: number) {
  const navigation = useNavigation();
  const sent = useRef<string | null>(null);
  const intent = navigation.formData?.get("intent");
  const what = intent === "status" ? `status:${navigation.formData?.get("status")}` : intent;
  useEffect(() => {
    if (navigation.state !== "idle") {
      if (typeof what === "string") sent.current = what;
      return;
    }
    const done = sent.current;
    sent.current = null;
    const at = document.activeElement;
    const lost = !at || at === document.body;
    if (done === "reply") {
      const box = document.querySelector<HTMLElement>('#reply [data-shortcut="reply"]');
      if (box && (lost || at?.closest("#reply"))) box.focus();
    } else if (done?.startsWith("status:") && DONE_STATUSES.includes(done.slice("status:".length)) && DONE_STATUSES.includes(String(status))) {
      if (lost || at?.closest("form")) focusList();
    }
  }, [navigation.state, what, status]);
}

function ReplyForm({ data, onSubmit }: { data: Data; onSubmit: () => void }) {
  const { t } = useTranslation();
  const failed = useFormResult("reply");
  const busy = useNavigation().state === "submitting";
  const replyTo = data.messages.find((m) => m.id === data.replyTo);
  const email = data.ticket.channel === "EMAIL" || data.ticket.channel === "GRAPH_EMAIL";
  const typing = useTypingEmitter(data.ticket.id);
  return (
    // a new key after each sent message empties the form; after a failure the typed text stays
    <Form
      method="post"
      encType="multipart/form-data"
      className="reply-form"
      id="reply"
      onSubmit={onSubmit}
      key={failed ? "failed" : `after-${data.messages.at(-1)?.id}-${data.draft.length}`}
    >
      <Intent value="reply" keptKey={failed?.values[REQUEST_KEY_FIELD_NAME]} />
      {replyTo ? (
        <p className="reply-quote">
          <input type="hidden" name="reply_to" value={replyTo.id} />
          {t("conversation.replyingTo", { name: replyTo.sender })} <Link to="?">{t("common.cancel")}</Link>
        </p>
      ) : null}
      <FormMessage result={failed} />
      {data.composerHints.map((hint) => (
        <p key={hint.notice} className="composer-hint" data-composer-hint>
          {t(hint.notice)} {hint.link ? <Link to={hint.link.href}>{t(hint.link.label)}</Link> : null}
        </p>
      ))}
      <label>
        {t("conversation.reply")}
        <textarea name="message" rows={4} maxLength={20000} defaultValue={failed?.values.message ?? data.draft} onInput={typing} {...shortcutTarget("reply")} />
      </label>
      {email ? (
        <>
          <label>
            {t("conversation.cc")}
            <input name="cc" defaultValue={failed?.values.cc ?? ""} />
          </label>
          <label>
            {t("conversation.extraRecipients")}
            <input name="email2" defaultValue={failed?.values.email2 ?? ""} />
          </label>
        </>
      ) : null}
      <label>
        {t("conversation.attachments")}
        <input type="file" name="attachment" multiple />
      </label>
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? t("conversation.sending") : t("conversation.send")}
      </button>
    </Form>
  );
}

const Properties = memo(function Properties({ data }: { data: Data }) {
  const { t } = useTranslation();
  const current = new Set(data.details.labels.map((l) => l.id));
  const inConversation = new Set(data.details.participants.map((p) => p.userId));
  return (
    <aside className="properties" aria-label={t("conversation.properties")}>
      <ChoiceForm
        intent="status"
        label={t("conversation.status")}
        defaultValue={data.ticket.status}
        options={[0, 1, 2, 3].map((s) => ({ value: s, label: t(`ticketStatus.${s}`) }))}
        submit={t("conversation.setStatus")}
      />
      <ChoiceForm
        intent="priority"
        label={t("conversation.priority")}
        defaultValue={data.ticket.severity}
        options={(["H", "M", "L", ""] as const).map((p) => ({ value: p, label: t(`priority.${p || "none"}`) }))}
        submit={t("conversation.markPriority")}
      />
      <Form method="post" className="stack">
        <Intent value="labels" />
        <fieldset>
          <legend>{t("conversation.labels")}</legend>
          {data.labels.map((l) => (
            <label key={l.id} className="inline">
              <input type="checkbox" name="label" value={l.id} defaultChecked={current.has(l.id)} />
              <LabelDot label={l} /> {l.name}
            </label>
          ))}
          {data.details.labels
            .filter((l) => l.name === null)
            .map((l) => (
              <LabelChip key={l.id} label={l}>
                {t("list.removedLabel")}
              </LabelChip>
            ))}
        </fieldset>
        <button type="submit" className="button">
          {t("conversation.saveLabels")}
        </button>
      </Form>
      {data.panels.map((panel) => (
        <PluginPanel key={panel.id ?? panel.plugin} panel={panel} />
      ))}
      <ChoiceForm
        intent="department"
        label={t("conversation.department")}
        defaultValue={data.ticket.departmentId ?? ""}
        options={[{ value: "", label: t("priority.none") }, ...data.departments.map((d) => ({ value: d.id, label: d.name }))]}
        submit={t("conversation.setDepartment")}
      />
      <section className="stack">
        <h2>{t("conversation.participants")}</h2>
        <ul className="participants">
          {data.details.participants.map((p) => (
            <li key={p.userId}>
              <ProfileLink username={p.username}>{p.name}</ProfileLink> {p.assignee ? <span className="badge">{t("conversation.assignee")}</span> : null}
              <ActionButton
                intent="remove_participant"
                fields={{ user_id: p.userId }}
                label={t("conversation.remove")}
                ariaLabel={t("conversation.removePerson", { name: p.name })}
              />
            </li>
          ))}
        </ul>
        <Form method="post" className="stack">
          <Intent value="add_participant" />
          <label>
            {t("conversation.addPerson")}
            <select name="username">
              {data.staff
                .filter((s) => !inConversation.has(s.id))
                .map((s) => (
                  <option key={s.username} value={s.username}>
                    {s.name}
                  </option>
                ))}
            </select>
          </label>
          <label className="inline">
            <input type="checkbox" name="assignee" value="1" /> {t("conversation.asAssignee")}
          </label>
          <button type="submit" className="button">
            {t("conversation.add")}
          </button>
        </Form>
      </section>
    </aside>
  );
});

/** What a plugin knows about the conversation (its case, contact, products): links, drawn the same with and without JavaScript. */
function PluginPanel({ panel }: { panel: Data["panels"][number] }) {
  const { t } = useTranslation();
  const text = (label: PanelText) =>
    "text" in label
      ? label.text
      : t(label.key, Object.fromEntries(Object.entries(label.values ?? {}).map(([k, v]) => [k, v.startsWith("t:") ? t(v.slice(2)) : v])));
  const id = `panel-${panel.id ?? panel.plugin}`;
  return (
    <section className="stack plugin-panel" aria-labelledby={id} data-panel={panel.id ?? panel.plugin}>
      <h2 id={id}>{t(panel.title)}</h2>
      {panel.search ? (
        <Form method="get" role="search" className="inline-form" aria-labelledby={id}>
          <label>
            {t(panel.search.label)}
            <input type="search" name={panel.search.name} defaultValue={panel.search.value} maxLength={200} />
          </label>
          <button type="submit" className="button">
            {t(panel.search.submit)}
          </button>
        </Form>
      ) : null}
      {panel.items.length ? (
        <ul>
          {panel.items.map((item, i) => (
            <li key={i}>
              {item.href ? <Link to={item.href}>{text(item.label)}</Link> : text(item.label)}
              {item.channels?.length ? (
                <span className="channel-list">
                  {item.channels.map((channel) => (
                    <ChannelName key={channel} channel={channel} className="channel-name" />
                  ))}
                </span>
              ) : null}
              {item.actions?.length ? (
                <span className="inline-form">
                  {item.actions.map((action, n) => (
                    <PanelActionLink key={`${n}:${action.href}`} action={action} text={text} />
                  ))}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : panel.empty ? (
        <p className="muted">{t(panel.empty)}</p>
      ) : null}
      {panel.audio ? (
        <figure className="stack">
          <figcaption>{text(panel.audio.label)}</figcaption>
          <audio controls preload="metadata" src={panel.audio.src}>
            <source src={panel.audio.src} type={panel.audio.type} />
          </audio>
          <a href={panel.audio.src}>{text(panel.audio.download)}</a>
        </figure>
      ) : null}
      {panel.actions.map((action) => (
        <PanelActionLink key={action.href} action={action} text={text} />
      ))}
    </section>
  );
}

/** A panel's link; one with `insert` puts its text into the reply box at the cursor when JavaScript runs (else its href carries it as ?draft=). */
function PanelActionLink({ action, text }: { action: Data["panels"][number]["actions"][number]; text: (label: PanelText) => string }) {
  const insert = action.insert;
  if (action.fields)
    return (
      <Form method="post" action={action.href} className="inline" preventScrollReset>
        {Object.entries(action.fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <button type="submit" className="button">
          {text(action.label)}
        </button>
      </Form>
    );
  return (
    <Link
      to={action.href}
      className="button"
      preventScrollReset
      onClick={
        insert === undefined
          ? undefined
          : (event) => {
              const box = document.querySelector<HTMLTextAreaElement>('#reply textarea[name="message"]');
              if (!box) return;
              event.preventDefault();
              const start = box.selectionStart ?? box.value.length;
              const end = box.selectionEnd ?? start;
              const before = box.value.slice(0, start);
              const glue = before && !/\s$/.test(before) ? (insert.includes("\n") ? "\n\n" : " ") : "";
              box.setRangeText(glue + insert, start, end, "end");
              box.dispatchEvent(new Event("input", { bubbles: true }));
              box.focus();
            }
      }
    >
      {text(action.label)}
    </Link>
  );
}

/** One property of the conversation: a select and its button, posted as `intent`. */
function ChoiceForm(props: {
  intent: string;
  label: string;
  defaultValue: string | number;
  options: { value: string | number; label: string }[];
  submit: string;
}) {
  return (
    <Form method="post" className="stack">
      <Intent value={props.intent} />
      <label>
        {props.label}
        <select name={props.intent} defaultValue={props.defaultValue}>
          {props.options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="button">
        {props.submit}
      </button>
    </Form>
  );
}

const SHOWN_RECIPIENTS = 10;

/** A mail's From/To/Cc in one compact block, and the warning when its sender is not who it claims. */
function EmailMeta({ email }: { email: NonNullable<Message["email"]> }) {
  const { t } = useTranslation();
  const people = (list: string[]) =>
    list.slice(0, SHOWN_RECIPIENTS).join(", ") +
    (list.length > SHOWN_RECIPIENTS ? ` ${t("conversation.email.more", { count: list.length - SHOWN_RECIPIENTS })}` : "");
  return (
    <>
      {email.authWarning ? <p className="auth-warning">{t(`conversation.email.${email.authWarning}`)}</p> : null}
      <dl className="email-meta">
        <dt>{t("conversation.email.from")}</dt>
        <dd>{email.from}</dd>
        {email.to.length ? (
          <>
            <dt>{t("conversation.email.to")}</dt>
            <dd>{people(email.to)}</dd>
          </>
        ) : null}
        {email.cc.length ? (
          <>
            <dt>{t("conversation.cc")}</dt>
            <dd>{people(email.cc)}</dd>
          </>
        ) : null}
      </dl>
    </>
  );
}
