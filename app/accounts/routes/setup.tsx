// /setup: the first run of an empty install. The server prints a one-time link on its console at
// each start; with it, this page creates the workspace and its first admin, then signs them in.
// Without it, the page says how to get one. Once any user exists the page is gone (404).
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";
import { formResult, formValues } from "~/forms";
import { refuse } from "~/forms.server";
import {
  createWorkspace,
  installIsEmpty,
  readWorkspaceForm,
  SetupTokenInvalid,
  setupTokenValid,
  signInCreatedAdmin,
  signupOpen,
  workspaceFormDefaults,
  WorkspaceExists,
} from "~/accounts/setup.server";
import { WorkspaceForm } from "~/accounts/components/WorkspaceForm";

const notFound = () => new Response("Not Found", { status: 404 });

export async function loader({ request, context }: LoaderFunctionArgs) {
  if (!(await installIsEmpty())) throw notFound();
  const ctx = await requestContext(request, context);
  const token = new URL(request.url).searchParams.get("token") ?? undefined;
  const valid = await setupTokenValid(token);
  return json({
    productTitle: ctx.edition.title,
    view: valid ? ("form" as const) : token ? ("invalid" as const) : ("noLink" as const),
    defaults: valid ? workspaceFormDefaults(ctx.language, token) : null,
    signupOpen: signupOpen(),
  });
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.productTitle ?? "" }];

export async function action({ request, context }: ActionFunctionArgs) {
  if (!(await installIsEmpty())) throw notFound();
  const form = await request.formData();
  const token = formValues(form, ["token"]).token;
  const keep = () => formValues(form, ["workspace", "timezone", "language", "username", "name", "email"]);
  // checked before the password is hashed; the transaction uses it (once) for good
  if (!(await setupTokenValid(token))) return refuse(formResult({ message: "setup.linkInvalid", values: keep() }), 403);
  const read = await readWorkspaceForm(form);
  if (!read.ok) return refuse(read.result);
  try {
    const { user } = await createWorkspace(read.workspace, { via: "setup", setupToken: token }, { ip: context.clientIp });
    return signInCreatedAdmin(request, user, context.clientIp);
  } catch (error) {
    if (error instanceof SetupTokenInvalid) return refuse(formResult({ message: "setup.linkInvalid", values: keep() }), 403);
    if (error instanceof WorkspaceExists) throw notFound();
    throw error;
  }
}

export default function Setup() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <main className="login-page">
      <section className="login-card wide stack">
        <h1>{t("setup.title", { product: data.productTitle })}</h1>
        {data.defaults ? (
          <>
            <p className="muted">{t("setup.intro")}</p>
            <WorkspaceForm defaults={data.defaults} submit={t("setup.form.submit")} />
          </>
        ) : (
          <>
            {data.view === "invalid" ? (
              <p className="form-error" role="alert">
                {t("setup.linkInvalid")}
              </p>
            ) : null}
            <p>{t("setup.noLink")}</p>
            <p>{t("setup.cliHint")}</p>
            <pre>
              <code>npm run user:create -- --admin --username NAME --email ADDRESS</code>
            </pre>
            {data.signupOpen ? (
              <p>
                <Link to="/signup">{t("setup.signupHint")}</Link>
              </p>
            ) : null}
          </>
        )}
      </section>
    </main>
  );
}
