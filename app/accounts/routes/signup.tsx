// /signup: with SIGNUP_OPEN=1, a visitor of an empty install creates a trial workspace (account
// type 0) and becomes its admin. Closed (the default), or once the workspace exists (one per
// install), the page says to ask an admin for an invite. Signed-in users go home.
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";
import { refuse } from "~/forms.server";
import { formResult } from "~/forms";
import {
  createWorkspace,
  installIsEmpty,
  readWorkspaceForm,
  signInCreatedAdmin,
  signupOpen,
  TRIAL_DAYS,
  workspaceFormDefaults,
  WorkspaceExists,
} from "~/accounts/setup.server";
import { WorkspaceForm } from "~/accounts/components/WorkspaceForm";

async function state() {
  if (!signupOpen()) return "closed" as const;
  return (await installIsEmpty()) ? ("open" as const) : ("exists" as const);
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  if (ctx.user) throw redirect("/");
  const view = await state();
  return json({ productTitle: ctx.edition.title, view, trialDays: TRIAL_DAYS, defaults: view === "open" ? workspaceFormDefaults(ctx.language) : null });
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.productTitle ?? "" }];

export async function action({ request, context }: ActionFunctionArgs) {
  const ctx = await requestContext(request, context);
  if (ctx.user) throw redirect("/");
  const view = await state();
  if (view === "closed") return refuse(formResult({ message: "setup.signup.closed" }), 403);
  // the page shows why (the workspace exists) from its loader
  if (view === "exists") return refuse(formResult({ message: "setup.signup.exists" }), 409);
  const read = await readWorkspaceForm(await request.formData());
  if (!read.ok) return refuse(read.result);
  try {
    const { user } = await createWorkspace(read.workspace, { via: "signup" }, { ip: context.clientIp });
    return signInCreatedAdmin(request, user, context.clientIp);
  } catch (error) {
    if (error instanceof WorkspaceExists) return refuse(formResult({ message: "setup.signup.exists" }), 409);
    throw error;
  }
}

export default function Signup() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="login-page">
      <section className="login-card wide stack">
        {data.defaults ? (
          <>
            <h1>{t("setup.signup.title")}</h1>
            <p className="muted">{t("setup.signup.intro", { days: data.trialDays, product: data.productTitle })}</p>
            <WorkspaceForm defaults={data.defaults} submit={t("setup.signup.submit")} />
          </>
        ) : (
          <>
            <h1>{t(data.view === "exists" ? "setup.signup.existsTitle" : "setup.signup.closedTitle")}</h1>
            <p>{t(data.view === "exists" ? "setup.signup.exists" : "setup.signup.closed")}</p>
          </>
        )}
        <p>
          <Link to="/">{t("setup.backToLogin")}</Link>
        </p>
      </section>
    </main>
  );
}
