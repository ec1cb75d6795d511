// Where rtpengine writes its call recordings: read by the recording job (../recording.server.ts)
// and passed to rtpengine (./servers.ts), so both agree.
import path from "node:path";

export function recordingDir() {
  return path.resolve(process.env.SIP_RECORDING_DIR || path.join(process.env.DATA_DIR || "data", "sip", "recordings"));
}
