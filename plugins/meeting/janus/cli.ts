// `npm run meeting:up` / `npm run meeting:down`: the meeting's media servers on loopback as
// background daemons, config, logs and pid files under $DATA_DIR/meeting (default data/meeting):
// Janus (JANUS_HTTP_PORT, default 8088; RTP ports MEETING_RTP_MIN/MAX, default 40000-40999) and,
// when TURN_SECRET is set, coturn (TURN_PORT, default 3478). The product then needs
// JANUS_URL=http://127.0.0.1:8088/janus (and TURN_URLS/TURN_SECRET) in its environment.
import path from "node:path";
import { janusPresent, missingJanusMessage, startMediaServers, stopMediaDaemons } from "./servers";

const runDir = path.resolve(process.env.DATA_DIR || "data", "meeting");
const command = process.argv[2];

if (command === "down") {
  const stopped = await stopMediaDaemons(runDir);
  console.log(stopped ? "Meeting media servers stopped." : "The meeting media servers were not running.");
} else if (command === "up") {
  if (!janusPresent()) {
    console.error(missingJanusMessage());
    process.exit(1);
  }
  await stopMediaDaemons(runDir);
  const janusPort = Number(process.env.JANUS_HTTP_PORT || 8088);
  const turnPort = Number(process.env.TURN_PORT || 3478);
  const servers = await startMediaServers({
    runDir,
    detached: true,
    listen: process.env.MEETING_LISTEN || "127.0.0.1",
    janusPort,
    rtpPortMin: Number(process.env.MEETING_RTP_MIN || 40000),
    rtpPortMax: Number(process.env.MEETING_RTP_MAX || 40999),
    turn: process.env.TURN_SECRET ? { port: turnPort, secret: process.env.TURN_SECRET, relayMin: 41000, relayMax: 41999 } : undefined,
  });
  console.log(
    `Meeting media server up: JANUS_URL=${servers.janusUrl}${servers.turnUrl ? `, TURN_URLS=${servers.turnUrl}` : " (no TURN: set TURN_SECRET to start coturn)"}; logs in ${runDir}`,
  );
  process.exit(0);
} else {
  console.error("usage: janus/cli.ts up|down");
  process.exit(2);
}
