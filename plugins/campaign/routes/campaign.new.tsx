// /campaign/new (admins): a new campaign, saved as a draft to check and start on its own page. A
// refusal keeps what was typed; the request key makes a double submit create one campaign.
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { formValues, refusalKey, useFormResult } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { campaignAccounts, saveCampaign } from "../campaign.server";
import { CampaignFields } from "../components/CampaignFields";
import { requireCampaignAdmin, requireCampaignUser } from "../guard.server";
import { FIELDS } from "../limits";
import { formWriteOnce } from "~/request-keys.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { user } = await requireCampaignUser(request, context);
  if (user.type !== "admin") throw redirect("/campaign");
  const accounts = await campaignAccounts();
  return json(
    { accounts: accounts.map((a) => ({ id: a.id, name: a.name, address: a.address, kind: a.kind })) },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const ctx = await requireCampaignAdmin(request, context);
  const form = await request.formData();
  const values = formValues(form, FIELDS);
  const outcome = await formWriteOnce(request, ctx.user.id, "campaign", "create", formValues(form), () =>
    saveCampaign(ctx.user, values, ctx.workspace.timeZone),
  );
  if (!outcome.ok) return refuse(outcome.result, outcome.status);
  return redirect(`/campaign/${outcome.id}`);
}

export const meta = pageMeta("plugin_campaign.new.title");

export default function NewCampaign() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const failed = useFormResult();
  const location = useLocation();
  const navigation = useNavigation();
  return (
    <section className="stack campaign-page">
      <p>
        <Link to="/campaign">{t("plugin_campaign.back")}</Link>
      </p>
      <h1>{t("plugin_campaign.new.title")}</h1>
      {data.accounts.length ? null : (
        <p className="notice" role="status">
          {t("plugin_campaign.errors.noAccounts")} <Link to="/settings/channels">{t("plugin_campaign.addAccount")}</Link>
        </p>
      )}
      <Form method="post" noValidate className="stack narrow" key={refusalKey(failed, location.key)}>
        <RequestKeyInput />
        <FormMessage result={failed} />
        <CampaignFields accounts={data.accounts} initial={{}} failed={failed} />
        <div>
          <button type="submit" className="button primary" disabled={navigation.state === "submitting"}>
            {t("plugin_campaign.new.create")}
          </button>
        </div>
      </Form>
    </section>
  );
}
