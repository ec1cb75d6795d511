// The conversation's data and forms (/ticket/{n}, /chat/{n}, and the live chat desk's /livechat/{n}):
// what the view shows and every change its plain forms make.
import { json, redirect, type SerializeFrom } from "@remix-run/node";
import { previewsOf } from "./link-preview.server";
import { channelReactions, composerHints } from "./composer-hints.server";
import { conversationPanels } from "./panels.server";
import { shownMessages, type LinkPreview } from "./message-view.server";
import { guardPluginRoute, isTrial, publicOrigin, viewerOf } from "~/context.server";
import type { Kind } from "~/conversation/channels";
import { AccessDenied, canRead } from "~/conversation/access.server";
import * as conversation from "~/conversation/model.server";
import { listLabelChoices, listDepartmentChoices } from "~/conversation/choices.server";
import { fileStorage } from "~/storage.server";
import { BodyTooLarge, readReplyForm, type ParsedForm } from "~/conversation/upload.server";
import { sendReply } from "~/conversation/reply.server";
import { NotRetryable, retryDelivery } from "~/conversation/delivery.server";
import { conversationFormSchema } from "~/conversation/forms";
import { formResult, formValues } from "~/forms";
import { refuse } from "~/forms.server";
import { listParams, listSearch } from "~/list-params";
import { KeyReused, once, requestKeyOfRequest } from "~/request-keys.server";

/** The longest draft the reply box takes from ?draft= (the reply's own limit). */
const DRAFT_MAX = 20_000;

function kindFromUrl(request: Request): Kind {
  const first = new URL(request.url).pathname.split("/")[1];
  return first === "chat" || first === "call" || first === "livechat" ? first : "ticket";
}

export async function open(request: Request, context: object, number: string | undefined) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user) throw redirect("/");
  const user = ctx.user;
  const ticketNumber = Number(number);
  try {
    if (!Number.isInteger(ticketNumber) || ticketNumber <= 0) throw new conversation.NotFound();
    const ticket = await conversation.findConversation(user, ticketNumber, kindFromUrl(request));
    return { ctx, user, ticket };
  } catch (error) {
    if (error instanceof AccessDenied) throw json({ code: "denied" }, { status: 403 });
    if (error instanceof conversation.NotFound) throw new Response("Not Found", { status: 404 });
    throw error;
  }
}

/** Everything the conversation view shows, for this route and for the live chat desk's. */
export async function conversationData(request: Request, { ctx, user, ticket }: Awaited<ReturnType<typeof open>>) {
  const url = new URL(request.url);
  const before = Number(url.searchParams.get("before")) || undefined;
  const around = Number(url.searchParams.get("message_id")) || undefined;
  const { timeZone } = ctx.workspace;
  const [page, details, labels, departments, staff, hints, reactionRules, panels] = await Promise.all([
    conversation.loadMessages(ticket, { before, around }),
    conversation.conversationDetails(ticket),
    listLabelChoices(),
    listDepartmentChoices(),
    conversation.staffList(),
    composerHints(ticket),
    channelReactions(ticket),
    conversationPanels(
      { ticket, reader: user, viewer: viewerOf(ctx)!, searchParams: url.searchParams, origin: publicOrigin(request) },
      ctx.edition.enabled,
      isTrial(ctx),
    ),
  ]);
  const replyTo = Number(url.searchParams.get("reply")) || null;
  // the rich-links cookie: previews already fetched, rendered here so they show without JS too
  const previews = ctx.richLinks ? await previewsOf(page.messages) : new Map<number, LinkPreview[]>();
  return {
    ticket: {
      id: ticket.id,
      number: ticket.ticketNumber,
      title: ticket.title,
      channel: ticket.channel,
      kind: ticket.kind,
      status: ticket.status,
      severity: ticket.severity,
      contactName: ticket.contactName,
      contactEmail: ticket.contactEmail,
      departmentId: ticket.departmentId,
      createdAt: ticket.createdAt,
      /** End-to-end encryption (plugins/e2ee): off, or its method, key version and whether a new version is due. */
      encryption: ticket.encryption ? { method: ticket.encryptionMethod, version: ticket.encryptionVersion, rekey: ticket.encryptionRekey } : null,
    },
    me: { id: user.id, type: user.type },
    messages: shownMessages(page.messages, timeZone, previews),
    hasOlder: page.hasOlder,
    replyTo: page.messages.find((m) => m.id === replyTo) ? replyTo : null,
    details,
    labels,
    departments,
    staff,
    composerHints: hints,
    /** Whether agents' reactions to the customer's messages reach them on their channel, and which the channel refuses. */
    channelReactions: reactionRules,
    panels,
    /** ?draft=: text the reply box starts with (a panel's "insert" without JavaScript), capped at the reply's length. */
    draft: (url.searchParams.get("draft") ?? "").slice(0, DRAFT_MAX),
    toast: url.searchParams.get("toast"),
    productTitle: ctx.edition.title,
  };
}

/** What the conversation view gets, as its page serialises it. */
export type ConversationData = SerializeFrom<typeof conversationData>;

/**
 * The conversation's form with its files (after `open` checked the reader), or the reply form's
 * 413 answer when the body is over the limit: refused before it is read, the typed text is lost.
 */
export async function readConversationForm(request: Request): Promise<ParsedForm | Response> {
  try {
    return await readReplyForm(request);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    return refuse(formResult({ intent: "reply", message: "conversation.bodyTooLarge", messageValues: { size: String(error.limit / 1024 / 1024) } }), 413);
  }
}

/** The conversation's forms (reply, status, labels, ...), for this route and the live chat desk's. */
export async function conversationAction(request: Request, { ctx, user, ticket }: Awaited<ReturnType<typeof open>>, { form, files, fileErrors }: ParsedForm) {
  const intent = String(form.get("intent") ?? "");
  const here = new URL(request.url);
  // back to the conversation, keeping the list's filters
  const back = (extra = "") => redirect(`${here.pathname}${listSearch(here.search)}${extra}`);
  const fields = formValues(form);
  const parsed = conversationFormSchema.safeParse(fields);
  if (!parsed.success) return refuse(formResult({ intent, message: "conversation.badInput" }));
  const input = parsed.data;
  const actor = user;
  // a form sent again with its key (a double click, a retry after a lost answer) changes nothing twice
  const requestKey = requestKeyOfRequest(request, `user:${user.id}`, intent, fields, files);
  try {
    return await once(
      requestKey,
      () => change(),
      () => back(),
    );
  } catch (error) {
    if (error instanceof AccessDenied) throw json({ code: "denied" }, { status: 403 });
    if (error instanceof conversation.NotFound) return refuse(formResult({ intent, message: "conversation.messageNotFound" }), 404);
    if (error instanceof NotRetryable) return refuse(formResult({ intent, message: "conversation.delivery.notRetryable" }), 409);
    if (error instanceof conversation.EncryptionRefused) return refuse(formResult({ intent, message: error.message }), 409);
    if (error instanceof conversation.ReactionRefused)
      return refuse(formResult({ intent, message: error.message, messageValues: { reaction: error.reaction } }), 409);
    if (error instanceof KeyReused)
      return refuse(formResult({ intent, message: "conversation.sentBefore", values: formValues(form, ["message", "cc", "email2"]) }), 422);
    throw error;
  }

  async function change() {
    switch (input.intent) {
      case "reply": {
        const sent = await sendReply(actor, ticket, { fields: Object.fromEntries(form), files, fileErrors, enabled: ctx.edition.enabled });
        // the typed text stays in the form (and in the failed bubble, with Retry)
        if (!sent.ok)
          return refuse(
            formResult({
              intent,
              message: sent.message,
              messageValues: sent.messageValues,
              values: formValues(form, ["message", "cc", "email2"]),
            }),
          );
        return back();
      }
      case "status":
        await conversation.setStatus(actor, ticket, input.status);
        return back();
      case "priority": {
        await conversation.setPriority(ticket, input.priority);
        const search = listParams(here.search);
        search.set("toast", `priority-${input.priority || "none"}`);
        return redirect(`${here.pathname}?${search}`);
      }
      case "labels":
        await conversation.setLabels(ticket, input.label);
        return back();
      case "department":
        await conversation.setDepartment(ticket, input.department);
        return back();
      case "add_participant":
        await conversation.addParticipant(actor, ticket, input.username, input.assignee);
        return back();
      case "remove_participant":
        await conversation.removeParticipant(actor, ticket, input.user_id);
        // agents who removed themselves may no longer read the conversation
        return input.user_id === actor.id && !(await canRead(actor, ticket.id)) ? redirect("/?notice=removed") : back();
      case "note":
        if (input.note) await conversation.addNote(actor, ticket, input.message_id, input.note);
        return back(`#m-${input.message_id}`);
      case "delete_note":
        await conversation.deleteNote(actor, ticket, input.note_id);
        return back();
      case "react":
        await conversation.toggleReaction(actor, ticket, input.message_id, input.reaction);
        return back(`#m-${input.message_id}`);
      case "pin":
        await conversation.togglePin(ticket, input.message_id);
        return back(`#m-${input.message_id}`);
      case "delete_message": {
        const key = await conversation.deleteMessage(actor, ticket, input.message_id);
        if (key) await fileStorage().remove(key);
        return back();
      }
      case "retry_delivery":
        await retryDelivery(ticket, input.message_id);
        return back(`#m-${input.message_id}`);
    }
  }
}
