import { useRootData } from "~/root";
import { REQUEST_KEY_FIELD_NAME } from "~/request-key-field";

/**
 * The hidden key that makes a form safe to send twice (ADR 045): the page's key from the server
 * (a page without JavaScript), replaced by a fresh one at each submit with it (app/request-key.ts).
 * `kept`: the key of a send whose answer was lost, sent again as is.
 */
export function RequestKeyInput({ kept }: { kept?: string }) {
  const root = useRootData();
  return <input type="hidden" name={REQUEST_KEY_FIELD_NAME} defaultValue={kept || root?.requestKey} data-keep={kept ? "" : undefined} />;
}
