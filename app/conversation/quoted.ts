// A plain-text message from a channel keeps the history it quotes after this separator (a form
// feed no one types); the view shows the new part and folds the rest away.
export const QUOTED_SEPARATOR = "\n\f\n";

export function splitQuoted(body: string): { body: string; quoted: string | null } {
  const at = body.indexOf(QUOTED_SEPARATOR);
  return at < 0 ? { body, quoted: null } : { body: body.slice(0, at), quoted: body.slice(at + QUOTED_SEPARATOR.length) };
}
