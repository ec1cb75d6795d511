// Admins: the links customers use (live chat, the new-ticket form), with the live chat's embed
// code, and a way to replace a link that leaked (the old one stops at once).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { publicOrigin, requestContext, requireAdmin } from "~/context.server";
import { SettingsNav } from "~/accounts/components/SettingsNav";
import { CUSTOMER_LINK_KINDS, currentToken, renewToken, type CustomerLinkKind } from "~/accounts/public-tokens.server";
import { pageMeta } from "~/meta";

/** Which plugin serves each kind's page, and the page's path. */
const LINKS: Record<CustomerLinkKind, { plugin: string; path: (token: string) => string }> = {
  livechat: { plugin: "livechat", path: (token) => `/start/livechat/${token}` },
  new_ticket: { plugin: "tickets", path: (token) => `/new_ticket/${token}` },
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireAdmin(request);
  const ctx = await requestContext(request, context);
  const origin = publicOrigin(request);
  const kinds = CUSTOMER_LINK_KINDS.filter((kind) => ctx.edition.enabled.includes(LINKS[kind].plugin));
  const links = await Promise.all(
    kinds.map(async (kind) => {
      const token = (await currentToken(kind))?.token;
      return { kind, url: token ? origin + LINKS[kind].path(token) : null, token: token ?? null };
    }),
  );
  return json({ origin, links, renewed: new URL(request.url).searchParams.get("renewed") });
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { user } = await requireAdmin(request);
  const form = await request.formData();
  const kind = String(form.get("kind"));
  if (!(CUSTOMER_LINK_KINDS as readonly string[]).includes(kind)) throw new Response("Bad Request", { status: 400 });
  await renewToken(kind as CustomerLinkKind, { id: user.id, name: user.username }, context.clientIp);
  return redirect(`/settings/links?renewed=${kind}#link-${kind}`);
}

export const meta = pageMeta("links.title");

export default function CustomerLinks() {
  const { origin, links, renewed } = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  return (
    <section className="settings stack">
      <SettingsNav admin />
      <h1>{t("links.title")}</h1>
      <p>{t("links.intro")}</p>
      {renewed ? (
        <p className="notice" role="status">
          {t("links.renewed")}
        </p>
      ) : null}
      {links.map((link) => (
        <section key={link.kind} id={`link-${link.kind}`} className="stack" aria-labelledby={`link-${link.kind}-title`}>
          <h2 id={`link-${link.kind}-title`}>{t(`links.${link.kind}`)}</h2>
          {link.url ? (
            <p>
              <a href={link.url} target="_blank" rel="noreferrer">
                {link.url}
              </a>
            </p>
          ) : (
            <p>{t("links.none")}</p>
          )}
          {link.kind === "livechat" && link.token ? (
            <>
              <label htmlFor="embed-code">{t("links.embed")}</label>
              <textarea id="embed-code" readOnly rows={2} value={`<script src="${origin}/livechat.js" data-token="${link.token}" async></script>`} />
            </>
          ) : null}
          <Form method="post">
            <input type="hidden" name="kind" value={link.kind} />
            <button type="submit" className="button">
              {t(link.url ? "links.renew" : "links.create")}
            </button>
          </Form>
        </section>
      ))}
    </section>
  );
}
