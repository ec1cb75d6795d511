// The server side of the form convention (app/forms.ts): a refused post answers its FormResult.
import { json } from "@remix-run/node";
import type { FormResult } from "~/forms";

/** A refused form post: 400, or the status its reason has (403 expired, 409 conflict, 429 too many). */
export function refuse<T extends FormResult>(result: T, status = 400) {
  return json<T>(result, { status });
}
