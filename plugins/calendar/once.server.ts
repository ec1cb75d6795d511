// An appointment form sent twice (a double click, a resend after a lost answer) writes once: its
// request key is stored with the write (ADR 045), and a resend answers what the first one did.
import { formResult } from "~/forms";
import { KeyReused, once, requestKeyOfRequest } from "~/request-keys.server";
import type { Outcome } from "./calendar.server";

export function calendarWriteOnce<T extends object>(
  request: Request,
  userId: number,
  action: string,
  fields: Record<string, string>,
  run: () => Promise<Outcome<T>>,
): Promise<Outcome<T>> {
  const key = requestKeyOfRequest(request, `user:${userId}`, `calendar.${action}`, fields);
  return once(key, run, (stored) => ({ ok: true as const, ...(stored as T) })).catch((error) => {
    if (error instanceof KeyReused)
      return { ok: false as const, result: formResult({ intent: action, message: "conversation.sentBefore", values: fields }), status: 422 };
    throw error;
  });
}
