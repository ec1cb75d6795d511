// GET /ticket/info/{token}/{id} -> the ticket with its labels, department and participants.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { conversationById, conversationDetails } from "~/conversation/model.server";
import { requireApiUser } from "~/api.server";
import { jsonErrors } from "~/conversation/api.server";

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireApiUser(request, {}, params.token);
  return jsonErrors(async () => {
    const ticket = await conversationById(user, Number(params.id));
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
      assignee: details.participants
        .filter((p) => p.assignee)
        .map((p) => p.username)
        .join(","),
      participants: details.participants.map((p) => p.username),
      created_at: ticket.createdAt,
      updated_at: ticket.updatedAt,
    });
  });
}
