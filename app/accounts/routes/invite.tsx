// /invite/:token: the invited person sets a password (and is signed in). A link works once, for
// 7 days, and not for a disabled account. Someone signed in is asked to sign out first.
import type { ActionFunctionArgs, LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { requestContext, sessionToken } from "~/context.server";
import { sessionCookie } from "~/cookies.server";
import { formError, formResult, formValues, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { FormMessage } from "~/components/FormMessage";
import { TextField } from "../components/UserFields";
import { acceptInvite, openInvite } from "../invites.server";
import { passwordProblem, PASSWORD_MIN_LENGTH } from "../password-policy.server";
import { deleteSession } from "../sessions.server";
import { completeSignIn } from "../auth.server";
import { RULE_VALUES, Refused } from "../users-admin.server";
import styles from "../users.css";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: styles }];

const NO_STORE = { "Cache-Control": "private, no-store" };

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.productTitle ?? "OmniDesk" }];

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  const productTitle = ctx.edition.title;
  if (ctx.user)
    return json({ view: "signedIn" as const, productTitle, signedInAs: ctx.user.name, invitee: null, passwordMin: PASSWORD_MIN_LENGTH }, { headers: NO_STORE });
  const invitee = await openInvite(params.token);
  if (!invitee)
    return json(
      { view: "expired" as const, productTitle, signedInAs: "", invitee: null, passwordMin: PASSWORD_MIN_LENGTH },
      { status: 410, headers: NO_STORE },
    );
  return json(
    { view: "form" as const, productTitle, signedInAs: "", invitee: { name: invitee.name, username: invitee.username }, passwordMin: PASSWORD_MIN_LENGTH },
    { headers: NO_STORE },
  );
}

const acceptSchema = z.object({ password: z.string(), confirm: z.string() });

export async function action({ request, params, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const token = params.token ?? "";
  const ctx = await requestContext(request, context);
  if (form.get("intent") === "signout") {
    const current = await sessionToken(request);
    if (current) await deleteSession(current);
    return redirect(`/invite/${encodeURIComponent(token)}`, { headers: { "Set-Cookie": await sessionCookie().serialize("", { maxAge: 0 }) } });
  }
  // a signed-in browser would end up with two accounts' cookies in play: sign out first
  if (ctx.user) return redirect(`/invite/${encodeURIComponent(token)}`);
  const invitee = await openInvite(token);
  if (!invitee) return refuse(formResult({ intent: "accept", message: "users.invite.expired" }), 410);
  const { password, confirm } = acceptSchema.parse(formValues(form, ["password", "confirm"]));
  const problem = passwordProblem(password, { username: invitee.username, email: invitee.email });
  if (problem) return refuse(formResult({ intent: "accept", errors: { password: problem }, messageValues: RULE_VALUES }));
  if (password !== confirm) return refuse(formResult({ intent: "accept", errors: { confirm: "users.invite.mismatch" } }));
  try {
    const user = await acceptInvite(token, password, context.clientIp);
    const { token: session } = await completeSignIn(user, { ip: context.clientIp, userAgent: request.headers.get("User-Agent") ?? "", method: "invite" });
    return redirect("/", { headers: { "Set-Cookie": await sessionCookie().serialize(session) } });
  } catch (error) {
    if (error instanceof Refused) return refuse(formResult({ intent: "accept", message: error.key }), error.opts.status ?? 400);
    throw error;
  }
}

export default function Invite() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="login-page">
      <section className="login-card stack">
        <h1>{data.productTitle}</h1>
        {data.view === "signedIn" ? (
          <>
            <h2>{t("users.invite.acceptTitle")}</h2>
            <p>{t("users.invite.signedIn", { name: data.signedInAs })}</p>
            <Form method="post">
              <input type="hidden" name="intent" value="signout" />
              <button type="submit" className="button primary">
                {t("users.invite.signOut")}
              </button>
            </Form>
            <Link to="/">{t("users.invite.goHome")}</Link>
          </>
        ) : data.view === "expired" ? (
          <>
            <h2>{t("users.invite.acceptTitle")}</h2>
            <p className="form-error" role="alert">
              {t("users.invite.expired")}
            </p>
            <Link to="/">{t("users.invite.toLogin")}</Link>
          </>
        ) : (
          <AcceptForm name={data.invitee!.name} username={data.invitee!.username} passwordMin={data.passwordMin} />
        )}
      </section>
    </main>
  );
}

function AcceptForm({ name, username, passwordMin }: { name: string; username: string; passwordMin: number }) {
  const { t } = useTranslation();
  const result = useFormResult("accept");
  return (
    <Form method="post" className="stack" noValidate>
      <input type="hidden" name="intent" value="accept" />
      <h2>{t("users.invite.acceptTitle")}</h2>
      <p>{t("users.invite.welcome", { name, username })}</p>
      <FormMessage result={result} />
      <TextField
        form="accept"
        name="password"
        type="password"
        label={t("users.invite.password")}
        autoComplete="new-password"
        hint={t("password.rules", { min: passwordMin })}
        result={result}
        required
      />
      <TextField form="accept" name="confirm" type="password" label={t("users.invite.confirm")} autoComplete="new-password" result={result} required />
      <button type="submit" className="button primary">
        {t("users.invite.accept")}
      </button>
    </Form>
  );
}
