// The calls plugin's background work: the job kinds that turn a call's recording into one file and
// transcribe it (recording.server.ts, transcription.server.ts), run on every node's job workers.
import { defineRecordingJob } from "./recording.server";
import { defineTranscriptionJob } from "./transcription.server";

export async function start() {
  defineRecordingJob();
  defineTranscriptionJob();
  return async () => {};
}
