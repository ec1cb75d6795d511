// `npm run sip:up` / `npm run sip:down`: the call server (Kamailio + rtpengine) on loopback as
// background daemons, config, logs and pid files under $DATA_DIR/sip (default data/sip). The
// product's auth hook is at APP_URL (default http://127.0.0.1:$PORT, PORT default 3000).
// Ports: SIP_PORT (UDP, default 5070), SIP_WS_PORT (WebSocket, default 5066), RTPENGINE_NG_PORT
// (default 22222), RTP_PORT_MIN/MAX (default 30000-30999). No root needed. SIP_TRUNK ("ip" or
// "ip:port", UDP) is the trunk whose INVITEs go to the DIDs' queues; VOICEMAIL_SIP_PORT (default
// 5072) is where the product's voicemail listens (the server starts it; ADR 052).
import path from "node:path";
import { sipHookSecret } from "../sip.server";
import { missingBinariesMessage, sipBinariesPresent, startSipServers, stopSipDaemons } from "./servers";

const runDir = path.resolve(process.env.DATA_DIR || "data", "sip");
const command = process.argv[2];

if (command === "down") {
  const stopped = await stopSipDaemons(runDir);
  console.log(stopped ? "Call server stopped." : "The call server was not running.");
} else if (command === "up") {
  if (!sipBinariesPresent()) {
    console.error(missingBinariesMessage());
    process.exit(1);
  }
  await stopSipDaemons(runDir);
  const app = process.env.APP_URL || `http://127.0.0.1:${process.env.PORT || 3000}`;
  const servers = await startSipServers({
    runDir,
    detached: true,
    listen: process.env.SIP_LISTEN || "127.0.0.1",
    sipPort: Number(process.env.SIP_PORT || 5070),
    wsPort: Number(process.env.SIP_WS_PORT || 5066),
    rtpengineNgPort: Number(process.env.RTPENGINE_NG_PORT || 22222),
    rtpPortMin: Number(process.env.RTP_PORT_MIN || 30000),
    rtpPortMax: Number(process.env.RTP_PORT_MAX || 30999),
    domain: process.env.SIP_DOMAIN || "omnidesk.local",
    authUrl: `${app}/hooks/sip/auth`,
    hookSecret: sipHookSecret(),
    pikeDensity: Number(process.env.SIP_PIKE_DENSITY || 30),
  });
  console.log(
    `Call server up: SIP udp ${servers.listen}:${servers.sipPort}, WebSocket ws://${servers.listen}:${servers.wsPort}, domain ${servers.domain}; logs in ${runDir}`,
  );
  process.exit(0);
} else {
  console.error("usage: sip/cli.ts up|down");
  process.exit(2);
}
