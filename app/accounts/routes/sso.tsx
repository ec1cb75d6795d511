// /sso/<id> sends the browser to the provider (authorization code flow with PKCE); the provider
// sends it back to /sso/<id>/callback, which signs in. Every refusal ends on the login page.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { publicOrigin, sessionToken } from "~/context.server";
import { sessionCookie } from "~/cookies.server";
import { deleteSession, findSession } from "~/accounts/sessions.server";
import { finishSignIn, flowCookie, ssoSession, startSignIn } from "~/accounts/sso.server";

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const id = Number(params.provider);
  const url = new URL(request.url);
  const headers = new Headers();

  if (params.step === undefined) {
    if (await findSession(await sessionToken(request))) return redirect("/");
    const start = await startSignIn(id, publicOrigin(request));
    if (!start.ok) return redirect(`/?sso=${start.reason}`);
    headers.append("Set-Cookie", await flowCookie().serialize(start.flow));
    return redirect(start.url, { headers });
  }
  if (params.step !== "callback") throw new Response("Not Found", { status: 404 });

  const ip = context.clientIp;
  const flow = await flowCookie().parse(request.headers.get("Cookie"));
  // the flow is used once, whatever the outcome
  headers.append("Set-Cookie", await flowCookie().serialize("", { maxAge: 0 }));
  const result = await finishSignIn(id, url, flow, publicOrigin(request), ip);
  if (!result.ok) return redirect(`/?sso=${result.reason}`, { headers });
  const previous = await sessionToken(request);
  if (previous) await deleteSession(previous);
  const { token } = await ssoSession(result, { ip, userAgent: request.headers.get("User-Agent") ?? "", method: "sso", allowPending: true });
  headers.append("Set-Cookie", await sessionCookie().serialize(token));
  return redirect("/", { headers });
}
