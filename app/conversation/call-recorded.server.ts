// A call's recording is ready (`callRecorded` in a plugin's manifest): the calls plugin says so once
// the recording is stored and, when transcription is on, transcribed (or its transcription gave
// up), in the transaction that made it so; each plugin that asks to hear of it queues its own
// durable work in that transaction (the AI plugin analyses the voice: energy, pace, emotion).
// Every plugin hears, enabled or not, as with background work (app/plugins/start.server.ts): a
// plugin's own job decides what to do. Plugins never import each other: this is their meeting point.
import type { Tx } from "@db/client";
import { pluginExport } from "~/plugins/modules.server";
import { plugins } from "~/plugins/registry.server";

export type CallSide = "agent" | "customer";

export interface CallRecording {
  /** The CALL ticket. */
  ticketId: number;
  callId: number;
  /** The recording in the product's storage (~/storage.server). */
  recordingKey: string;
  recordingType: string;
  /** Which channel of the (stereo) recording carries each side. */
  channels: Record<CallSide, number>;
  /** What each side said, in order; empty when transcription is off, found nothing or gave up. */
  transcript: { side: CallSide; offsetMs: number; text: string }[];
}

export type CallRecordedHook = (tx: Tx | undefined, recording: CallRecording) => Promise<void>;

/** Tells every plugin that listens; `tx`: the transaction that made the recording ready. */
export async function callRecorded(tx: Tx | undefined, recording: CallRecording) {
  for (const p of plugins().filter((p) => p.callRecorded)) await (await pluginExport<CallRecordedHook>(p.id, p.callRecorded!))(tx, recording);
}
