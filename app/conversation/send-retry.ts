// A send whose answer never came (the network dropped, the server restarted): the server may have
// stored it or not. The form comes back as a failed send with its text and its request key kept,
// and it is sent again with that key (SendState's retry), so it is stored exactly once (ADR 045).
import type { ClientActionFunctionArgs } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { formResult, formValues, type FormResult } from "~/forms";
import { REQUEST_KEY_FIELD_NAME } from "~/request-key-field";

export const CONNECTION_LOST = "conversation.connectionLost";

export async function keepSendOnLostAnswer({ request, serverAction }: ClientActionFunctionArgs) {
  const sent = await request.clone().formData();
  try {
    return await serverAction();
  } catch (error) {
    // fetch's own failure (no answer at all); a server's refusal or a redirect is not one
    if (!(error instanceof TypeError)) throw error;
    const intent = String(sent.get("intent") ?? "");
    return formResult({ intent, message: CONNECTION_LOST, values: formValues(sent, ["message", "cc", "email2", REQUEST_KEY_FIELD_NAME]) });
  }
}

/** A send whose answer was lost goes again every 5 s (a minute long), with its kept key: stored once. */
export function useResendWhenLost(result: FormResult | undefined, form: () => HTMLFormElement | null) {
  const tries = useRef(0);
  useEffect(() => {
    if (result?.message !== CONNECTION_LOST) {
      tries.current = 0;
      return;
    }
    if (++tries.current > 12) return;
    const timer = setTimeout(() => form()?.requestSubmit(), 5000);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- each new result is one more try
  }, [result]);
}
