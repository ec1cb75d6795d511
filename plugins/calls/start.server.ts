// The calls plugin's background work: the job kinds that turn a call's recording into one file and
// transcribe it (recording.server.ts, transcription.server.ts), run on every node's job workers;
// and, where the call server is installed, the voicemail that answers a DID's unanswered calls
// (voicemail.server.ts; one process per host binds its port, another one leaves it be).
import { defineRecordingJob } from "./recording.server";
import { defineTranscriptionJob } from "./transcription.server";
import { startVoicemail, trunkConfigured, voicemailAddress, type VoicemailServer } from "./voicemail.server";

export async function start() {
  defineRecordingJob();
  defineTranscriptionJob();
  let voicemail: VoicemailServer | null = null;
  const address = voicemailAddress();
  if (address && trunkConfigured()) {
    voicemail = await startVoicemail(address).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EADDRINUSE") console.warn(`[voicemail] not started on ${address.host}:${address.port}: ${error.message}`);
      return null;
    });
  }
  return async () => {
    await voicemail?.stop();
  };
}
