// The conversation's "Case" panel (app/conversation/panels.server.ts): the case the ticket is in,
// or a way to open one with it.
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { menuItemAllows } from "~/plugins/registry.server";
import { caseOfTicket } from "./case.server";

export async function casePanel({ ticket, viewer }: PanelInput): Promise<PanelSection | null> {
  if (ticket.kind !== "ticket" || !menuItemAllows("case", "case", viewer)) return null;
  const found = await caseOfTicket(ticket.id);
  if (found)
    return {
      title: "plugin_case.panel.title",
      items: [
        {
          label: {
            key: "plugin_case.panel.item",
            values: { number: String(found.number), title: found.title, status: `t:plugin_case.status.${found.status}` },
          },
          href: `/case/${found.number}`,
        },
      ],
      actions: [],
    };
  return {
    title: "plugin_case.panel.title",
    items: [],
    empty: "plugin_case.panel.none",
    actions: [{ label: { key: "plugin_case.panel.open" }, href: `/case/new?ticket=${ticket.ticketNumber}` }],
  };
}
