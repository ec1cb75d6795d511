// Who may use the encryption's JSON routes: the plugin gate, then the session behind `_token`, or
// (our own pages' scripts) the session cookie; server.ts refuses cross-origin posts.
import { json } from "@remix-run/node";
import { requireApiUser, str } from "~/api.server";
import { currentAuth, guardPluginRoute } from "~/context.server";
import { AccessDenied } from "~/conversation/access.server";
import { NotFound } from "~/conversation/model.server";
import { englishText } from "~/api.server";
import { E2eeRefused } from "./e2ee.server";

export async function e2eeApiUser(request: Request, context: object | undefined, body: Record<string, unknown> = {}) {
  await guardPluginRoute(request, context);
  if (str(body._token) || new URL(request.url).searchParams.has("_token") || request.headers.has("Authorization")) return requireApiUser(request, body);
  return (await currentAuth(request))?.user ?? requireApiUser(request, body);
}

const noStore = { "Cache-Control": "private, no-store" };

/** Runs a JSON route: its answer, or the refusal in the twins' shape ({result, description}). */
export async function e2eeJson(run: () => Promise<unknown>) {
  try {
    return json({ result: "success", data: await run() }, { headers: noStore });
  } catch (error) {
    if (error instanceof E2eeRefused)
      return json({ result: "failed", description: englishText(error.message), code: error.message }, { status: error.status, headers: noStore });
    if (error instanceof AccessDenied) return json({ result: "failed", description: "Access denied" }, { status: 403, headers: noStore });
    if (error instanceof NotFound) return json({ result: "failed", description: "Ticket not found." }, { status: 404, headers: noStore });
    throw error;
  }
}
