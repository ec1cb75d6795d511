// The conversation's "Call" panel (app/conversation/panels.server.ts) on a CALL ticket's page
// (/call/{n}): what the SIP server reported of the call: direction, DID, numbers, agent, state,
// ring / talk / hold / after-call-work durations and the hang-up cause; its recording as a player
// (an <audio> element with a plain link: it plays without JavaScript) and its transcript, each
// utterance with its side (agent or other). Rendered on the server.
import type { PanelInput, PanelSection } from "~/conversation/panels.server";
import { callOfTicket } from "./calls.server";
import { transcriptOf } from "./transcription.server";

/** The conversation panel (manifest): the call's section and, once it has a recording, its transcript's. */
export async function callPanels(input: PanelInput): Promise<PanelSection[] | null> {
  const section = await callPanel(input);
  if (!section?.audio) return section && [section];
  const call = (await callOfTicket(input.ticket.id))!;
  const transcript: PanelSection = {
    id: "call_transcript",
    title: "plugin_calls.transcript.title",
    items: [],
    actions: [],
    empty: "plugin_calls.transcript.none",
  };
  for (const entry of await transcriptOf(call.id))
    transcript.items.push({
      label: { key: "plugin_calls.transcript.entry", values: { source: `t:plugin_calls.transcript.${entry.source}`, text: entry.transcription } },
    });
  return [section, transcript];
}

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
  if (!call.recordingKey) return section;
  const seconds = String(Math.round((call.recordingMs ?? 0) / 1000));
  section.audio = {
    src: `/api/proxy/recordings?id=${ticket.ticketNumber}&type=${call.voicemail ? "voicemail" : "call"}`,
    type: call.recordingType ?? "audio/ogg",
    label: { key: call.voicemail ? "plugin_calls.panel.voicemail" : "plugin_calls.panel.recording", values: { count: seconds } },
    download: { key: "plugin_calls.panel.download" },
  };
  return section;
}
