// GET /ticket/info/{token}/{id} -> the ticket with its labels, department and participants.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { findSession } from "~/models/sessions.server";
import { conversationById, conversationDetails } from "~/models/conversation.server";
import { jsonErrors } from "~/api-tickets.server";

export async function loader({ params }: LoaderFunctionArgs) {
  const auth = await findSession(params.token);
  if (!auth) return json({ result: "failed", description: "Session expired. Please log in again." }, { status: 403 });
  return jsonErrors(async () => {
    const ticket = await conversationById(auth.user, Number(params.id));
    const details = await conversationDetails(ticket);
    return json({
      result: "success",
      id: ticket.id,
      ticket_number: ticket.ticketNumber,
      title: ticket.title,
      channel: ticket.channel,
      closed: ticket.status,
      severity: ticket.severity,
      department_id: ticket.departmentId,
      campaign_id: ticket.campaignId,
      name: ticket.contactName,
      receiver_email: ticket.contactEmail,
      phone: ticket.contactPhone,
      emotion: ticket.emotion,
      label: JSON.stringify(details.labels.map((l) => l.id)),
      assignee: details.participants.filter((p) => p.assignee).map((p) => p.username).join(","),
      participants: details.participants.map((p) => p.username),
      created_at: ticket.createdAt,
      updated_at: ticket.updatedAt,
    });
  });
}
