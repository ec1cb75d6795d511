// Email's background work: the built-in SMTP listener on SMTP_LISTEN_PORT (2525; "off" or 0: none),
// loopback unless SMTP_LISTEN_HOST says otherwise.
import { log } from "~/ops/log.server";
import { listenerSettings, startSmtpListener } from "./smtp-listener.server";

export async function start() {
  const settings = listenerSettings();
  if (!settings.enabled) return async () => {};
  if (Number.isNaN(settings.port)) {
    log.warn(`SMTP listener not started: SMTP_LISTEN_PORT=${process.env.SMTP_LISTEN_PORT} is not a port number (or "off")`);
    return async () => {};
  }
  try {
    const listener = await startSmtpListener(settings);
    log.info(`SMTP listener receiving mail on ${listener.host}:${listener.port} (at most ${settings.maxBytes} bytes a mail)`);
    return () => listener.close();
  } catch (error) {
    // the desk works without it (IMAP still polls); a second server on one machine is the usual cause
    const code = (error as { code?: string }).code;
    log.warn(
      { err: error },
      code === "EADDRINUSE"
        ? `SMTP listener not started: ${settings.host}:${settings.port} is in use (set SMTP_LISTEN_PORT to another port, or "off")`
        : "SMTP listener not started",
    );
    return async () => {};
  }
}
