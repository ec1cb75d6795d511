// The conversation's "Call" panel (app/conversation/panels.server.ts) on a CALL ticket's page
// (/call/{n}): what the SIP server reported of the call: direction, DID, numbers, agent, state,
// ring / talk / hold / after-call-work durations and the hang-up cause. Rendered on the server.
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { callOfTicket } from "./calls.server";

export async function callPanel({ ticket }: PanelInput): Promise<PanelSection | null> {
  if (ticket.kind !== "call") return null;
  const call = await callOfTicket(ticket.id);
  const section: PanelSection = { title: "plugin_calls.panel.title", items: [], actions: [], empty: "plugin_calls.panel.none" };
  if (!call) return section;
  const item = (key: string, values: Record<string, string | number> = {}) =>
    section.items.push({ label: { key: `plugin_calls.panel.${key}`, values: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, String(v)])) } });
  item("direction", { direction: `t:plugin_calls.direction.${call.direction}` });
  item("numbers", { from: call.fromNumber, to: call.toNumber });
  if (call.did) item("did", { did: call.did });
  item("agent", { agent: call.agentName || "–" });
  item("state", { state: `t:plugin_calls.state.${call.state}` });
  item("ring", { count: call.ring });
  item("talk", { count: call.talk });
  item("hold", { count: call.hold });
  if (call.acw != null) item("acw", { count: call.acw });
  if (call.hangupCause) item("cause", { cause: `t:plugin_calls.cause.${call.hangupCause}` });
  if (call.hangupBy) item("hangupBy", { by: call.hangupBy });
  return section;
}
