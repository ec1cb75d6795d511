// /call_config (admins, or agents with call_settings; spec section 6): the agents' SIP accounts
// (extension, password, active) the softphone registers with, and the DIDs calls come in on from
// the trunk (the queue each rings, how (its ring strategy), its ring timeout, voicemail and greeting),
// the outbound trunk agents' outside calls go through with its call prefix, and popup_on_call.
// Plain forms: they work without JavaScript; a refusal keeps what was typed (never the password).
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { Form, useLoaderData, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { z } from "zod";
import { guardPluginRoute } from "~/context.server";
import { deniedBoundary } from "~/components/AdminOnly";
import { FormMessage } from "~/components/FormMessage";
import { IntentButton } from "~/components/IntentButton";
import { TableScroll } from "~/components/TableScroll";
import { formError, formResult, formValues, refusalKey, useFormResult, valueList } from "~/forms";
import { refuse } from "~/forms.server";
import { pageMeta } from "~/meta";
import { deleteSipAccount, listSipAccounts, saveSipAccount, sipAccountForm, sipCandidates, sipServer } from "../sip.server";
import { requireCallSettings } from "../guard.server";
import { deleteDid, didDepartments, didForm, listDids, saveDid } from "../dids.server";
import { DEFAULT_RING_TIMEOUT, MAX_GREETING, RING_STRATEGIES } from "../dids";
import { trunkConfigured } from "../voicemail.server";
import { outboundTrunk, popupForm, savePopupOnCall, saveOutboundTrunk, trunkForm } from "../trunk.server";
import { getWorkspace } from "~/models/settings.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  await requireCallSettings(request);
  const params = new URL(request.url).searchParams;
  const server = sipServer();
  return json(
    {
      accounts: await listSipAccounts(),
      users: await sipCandidates(),
      server: { url: `${server.wsScheme}://${server.host}:${server.wsPort}`, domain: server.domain },
      saved: params.has("saved"),
      deleted: params.has("deleted"),
      edit: Number(params.get("edit")) || null,
      dids: await listDids(),
      departments: await didDepartments(),
      didSaved: params.has("didSaved"),
      didDeleted: params.has("didDeleted"),
      editDid: Number(params.get("editDid")) || null,
      // the trunk and the voicemail answer only with the call server set up (sip:up or the operator's)
      trunk: trunkConfigured(),
      outbound: await outboundTrunk(),
      outboundSaved: params.has("outboundSaved"),
      popupOnCall: (await getWorkspace()).popupOnCall,
      popupSaved: params.has("popupSaved"),
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

const FIELDS = ["userId", "sipNumber", "password", "active"] as const;
const DID_FIELDS = ["id", "number", "departmentId", "agentIds", "ringTimeout", "strategy", "voicemail", "greeting"] as const;
const TRUNK_FIELDS = ["trunk", "prefix", "callerId", "authUser", "authPassword"] as const;

export async function action({ request, context }: ActionFunctionArgs) {
  await guardPluginRoute(request, context);
  const { user } = await requireCallSettings(request);
  const form = await request.formData();
  const by = { actor: { id: user.id, name: user.username }, ip: String(context.clientIp ?? "") };
  const intent = String(form.get("intent") ?? "");
  if (intent === "delete") {
    const id = z.coerce.number().int().positive().safeParse(form.get("id"));
    if (!id.success || !(await deleteSipAccount(id.data, by))) return refuse(formResult({ intent: "delete", message: "plugin_calls.errors.gone" }), 404);
    return redirect("/call_config?deleted=1");
  }
  if (intent === "deleteDid") {
    const id = z.coerce.number().int().positive().safeParse(form.get("id"));
    if (!id.success || !(await deleteDid(id.data, by))) return refuse(formResult({ intent: "deleteDid", message: "plugin_calls.errors.didGone" }), 404);
    return redirect("/call_config?didDeleted=1#dids");
  }
  if (intent === "saveTrunk") {
    const values = formValues(form, TRUNK_FIELDS);
    // the trunk's password is never sent back
    const kept = { ...values, authPassword: "" };
    const parsed = trunkForm.safeParse(values);
    if (!parsed.success) return refuse(formError(parsed.error, kept, "saveTrunk"));
    const saved = await saveOutboundTrunk(parsed.data, by);
    if (!saved.ok) return refuse(formResult({ intent: "saveTrunk", errors: saved.errors, values: kept }));
    return redirect("/call_config?outboundSaved=1#outbound");
  }
  if (intent === "savePopup") {
    await savePopupOnCall(popupForm.parse({ popupOnCall: form.get("popupOnCall") }).popupOnCall, by);
    return redirect("/call_config?popupSaved=1#popup");
  }
  if (intent === "saveDid") {
    const values = formValues(form, DID_FIELDS);
    const id = values.id ? z.coerce.number().int().positive().safeParse(values.id) : null;
    if (id && !id.success) return refuse(formResult({ intent: "saveDid", message: "plugin_calls.errors.didGone", values }), 404);
    const parsed = didForm.safeParse(values);
    if (!parsed.success) return refuse(formError(parsed.error, values, "saveDid"));
    const saved = await saveDid(id ? id.data : null, parsed.data, by);
    if (!saved.ok)
      return refuse(formResult({ intent: "saveDid", errors: saved.errors, values }), saved.errors.number === "plugin_calls.errors.didTaken" ? 409 : 400);
    return redirect("/call_config?didSaved=1#dids");
  }
  const values = formValues(form, FIELDS);
  // the password is never sent back
  const kept = { ...values, password: "" };
  const parsed = sipAccountForm.safeParse(values);
  if (!parsed.success) return refuse(formError(parsed.error, kept, "save"));
  const saved = await saveSipAccount(parsed.data, by);
  if (!saved.ok) return refuse(formResult({ intent: "save", errors: saved.errors, values: kept }), saved.errors.sipNumber ? 409 : 400);
  return redirect("/call_config?saved=1");
}

export const meta = pageMeta("plugin_calls.menu.call_config");

export default function CallConfig() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const location = useLocation();
  const refused = useFormResult("save");
  const refusedDelete = useFormResult("delete");
  const editing = data.accounts.find((a) => a.id === data.edit) ?? null;
  const value = (name: (typeof FIELDS)[number], fallback: string) => refused?.values[name] ?? fallback;
  const error = (name: string) => refused?.errors[name];
  const activeChecked = refused ? refused.values.active === "1" : editing ? editing.active : true;
  const refusedDid = useFormResult("saveDid");
  const refusedDidDelete = useFormResult("deleteDid");
  const editingDid = data.dids.find((d) => d.id === data.editDid) ?? null;
  const didValue = (name: (typeof DID_FIELDS)[number], fallback: string) => refusedDid?.values[name] ?? fallback;
  const didError = (name: string) => refusedDid?.errors[name];
  const didAgents = refusedDid ? valueList(refusedDid.values.agentIds) : (editingDid?.agentIds ?? []).map(String);
  const voicemailChecked = refusedDid ? refusedDid.values.voicemail === "1" : editingDid ? editingDid.voicemail : true;
  const refusedTrunk = useFormResult("saveTrunk");
  const trunkValue = (name: Exclude<(typeof TRUNK_FIELDS)[number], "authPassword">) => refusedTrunk?.values[name] ?? data.outbound[name];
  const trunkError = (name: string) => refusedTrunk?.errors[name];
  return (
    <section className="settings stack">
      <h1>{t("plugin_calls.config.title")}</h1>
      <p className="muted">{t("plugin_calls.config.help", { url: data.server.url, domain: data.server.domain })}</p>
      {data.saved ? (
        <p className="notice" role="status">
          {t("plugin_calls.config.saved")}
        </p>
      ) : null}
      {data.deleted ? (
        <p className="notice" role="status">
          {t("plugin_calls.config.deleted")}
        </p>
      ) : null}
      <FormMessage result={refusedDelete} />

      <section className="stack" aria-labelledby="sip-accounts">
        <h2 id="sip-accounts">{t("plugin_calls.config.accounts")}</h2>
        {data.accounts.length ? (
          <TableScroll label={t("plugin_calls.config.accounts")}>
            <table className="payment-table">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_calls.config.sipNumber")}</th>
                  <th scope="col">{t("plugin_calls.config.agent")}</th>
                  <th scope="col">{t("plugin_calls.config.state")}</th>
                  <th scope="col">{t("plugin_calls.config.actions")}</th>
                </tr>
              </thead>
              <tbody>
                {data.accounts.map((a) => (
                  <tr key={a.id} data-testid={`sip-account-${a.sipNumber}`}>
                    <td>{a.sipNumber}</td>
                    <td>
                      {a.name} ({a.username})
                    </td>
                    <td>{a.active ? t("plugin_calls.config.active") : t("plugin_calls.config.inactive")}</td>
                    <td className="inline-form">
                      <a className="button" href={`/call_config?edit=${a.id}#sip-form`} aria-label={t("plugin_calls.config.editOf", { number: a.sipNumber })}>
                        {t("plugin_calls.config.edit")}
                      </a>
                      <IntentButton intent="delete" id={a.id} className="button danger" label={t("plugin_calls.config.deleteOf", { number: a.sipNumber })}>
                        {t("plugin_calls.config.delete")}
                      </IntentButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p className="muted">{t("plugin_calls.config.none")}</p>
        )}
      </section>

      <section className="card stack" aria-labelledby="sip-form-title" id="sip-form">
        <h2 id="sip-form-title">{editing ? t("plugin_calls.config.editTitle", { number: editing.sipNumber }) : t("plugin_calls.config.add")}</h2>
        <Form method="post" className="stack" key={refusalKey(refused, `${location.key}-${data.edit ?? ""}`)} noValidate>
          <input type="hidden" name="intent" value="save" />
          <div className="field">
            <label htmlFor="sip-user">{t("plugin_calls.config.agent")}</label>
            <select
              id="sip-user"
              name="userId"
              defaultValue={value("userId", editing ? String(editing.userId) : "")}
              aria-invalid={error("userId") ? true : undefined}
              aria-describedby={error("userId") ? "sip-user-error" : undefined}
            >
              <option value="">{t("plugin_calls.config.chooseAgent")}</option>
              {data.users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name} ({u.username})
                </option>
              ))}
            </select>
            {error("userId") ? (
              <p className="field-error" id="sip-user-error">
                {t(error("userId")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="sip-number">{t("plugin_calls.config.sipNumber")}</label>
            <input
              id="sip-number"
              name="sipNumber"
              inputMode="numeric"
              autoComplete="off"
              defaultValue={value("sipNumber", editing?.sipNumber ?? "")}
              aria-invalid={error("sipNumber") ? true : undefined}
              aria-describedby={error("sipNumber") ? "sip-number-error" : undefined}
            />
            {error("sipNumber") ? (
              <p className="field-error" id="sip-number-error">
                {t(error("sipNumber")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="sip-password">{t("plugin_calls.config.password")}</label>
            <input
              id="sip-password"
              name="password"
              type="password"
              autoComplete="new-password"
              aria-invalid={error("password") ? true : undefined}
              aria-describedby={`sip-password-help${error("password") ? " sip-password-error" : ""}`}
            />
            <p className="muted" id="sip-password-help">
              {editing ? t("plugin_calls.config.passwordKeep") : t("plugin_calls.config.passwordHelp")}
            </p>
            {error("password") ? (
              <p className="field-error" id="sip-password-error">
                {t(error("password")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label>
              <input type="checkbox" name="active" value="1" defaultChecked={activeChecked} /> {t("plugin_calls.config.active")}
            </label>
          </div>
          <button type="submit" className="button primary">
            {t("common.save")}
          </button>
        </Form>
      </section>

      <section className="stack" aria-labelledby="dids">
        <h2 id="dids">{t("plugin_calls.dids.title")}</h2>
        <p className="muted">{data.trunk ? t("plugin_calls.dids.help") : t("plugin_calls.dids.notConfigured")}</p>
        {data.didSaved ? (
          <p className="notice" role="status">
            {t("plugin_calls.dids.saved")}
          </p>
        ) : null}
        {data.didDeleted ? (
          <p className="notice" role="status">
            {t("plugin_calls.dids.deleted")}
          </p>
        ) : null}
        <FormMessage result={refusedDidDelete} />
        {data.dids.length ? (
          <TableScroll label={t("plugin_calls.dids.title")}>
            <table className="payment-table">
              <thead>
                <tr>
                  <th scope="col">{t("plugin_calls.dids.number")}</th>
                  <th scope="col">{t("plugin_calls.dids.queue")}</th>
                  <th scope="col">{t("plugin_calls.dids.strategy")}</th>
                  <th scope="col">{t("plugin_calls.dids.ringTimeout")}</th>
                  <th scope="col">{t("plugin_calls.dids.voicemail")}</th>
                  <th scope="col">{t("plugin_calls.config.actions")}</th>
                </tr>
              </thead>
              <tbody>
                {data.dids.map((d) => (
                  <tr key={d.id} data-testid={`did-${d.number}`}>
                    <td>{d.number}</td>
                    <td>{[d.departmentName, ...d.agents].filter(Boolean).join(", ")}</td>
                    <td>{t(`plugin_calls.dids.strategies.${d.ringStrategy}`, { defaultValue: d.ringStrategy })}</td>
                    <td>{t("plugin_calls.list.seconds", { n: d.ringTimeoutSeconds })}</td>
                    <td>{d.voicemail ? t("plugin_calls.dids.on") : t("plugin_calls.dids.off")}</td>
                    <td className="inline-form">
                      <a className="button" href={`/call_config?editDid=${d.id}#did-form`} aria-label={t("plugin_calls.dids.editOf", { number: d.number })}>
                        {t("plugin_calls.config.edit")}
                      </a>
                      <IntentButton intent="deleteDid" id={d.id} className="button danger" label={t("plugin_calls.dids.deleteOf", { number: d.number })}>
                        {t("plugin_calls.config.delete")}
                      </IntentButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p className="muted">{t("plugin_calls.dids.none")}</p>
        )}
      </section>

      <section className="card stack" aria-labelledby="did-form-title" id="did-form">
        <h2 id="did-form-title">{editingDid ? t("plugin_calls.dids.editOf", { number: editingDid.number }) : t("plugin_calls.dids.add")}</h2>
        <Form method="post" className="stack" key={refusalKey(refusedDid, `${location.key}-did-${data.editDid ?? ""}`)} noValidate>
          <input type="hidden" name="intent" value="saveDid" />
          {editingDid ? <input type="hidden" name="id" value={editingDid.id} /> : null}
          <FormMessage result={refusedDid} />
          <div className="field">
            <label htmlFor="did-number">{t("plugin_calls.dids.number")}</label>
            <input
              id="did-number"
              name="number"
              inputMode="tel"
              autoComplete="off"
              defaultValue={didValue("number", editingDid?.number ?? "")}
              aria-invalid={didError("number") ? true : undefined}
              aria-describedby={`did-number-help${didError("number") ? " did-number-error" : ""}`}
            />
            <p className="muted" id="did-number-help">
              {t("plugin_calls.dids.numberHelp")}
            </p>
            {didError("number") ? (
              <p className="field-error" id="did-number-error">
                {t(didError("number")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="did-department">{t("plugin_calls.dids.department")}</label>
            <select
              id="did-department"
              name="departmentId"
              defaultValue={didValue("departmentId", editingDid?.departmentId != null ? String(editingDid.departmentId) : "")}
              aria-invalid={didError("departmentId") ? true : undefined}
              aria-describedby={didError("departmentId") ? "did-department-error" : undefined}
            >
              <option value="">{t("plugin_calls.dids.noDepartment")}</option>
              {data.departments.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name}
                </option>
              ))}
            </select>
            {didError("departmentId") ? (
              <p className="field-error" id="did-department-error">
                {t(didError("departmentId")!)}
              </p>
            ) : null}
          </div>
          <fieldset
            className="field"
            aria-invalid={didError("agentIds") ? true : undefined}
            aria-describedby={didError("agentIds") ? "did-agents-error" : undefined}
          >
            <legend>{t("plugin_calls.dids.agents")}</legend>
            {data.accounts.length ? (
              data.accounts.map((a) => (
                <label key={a.userId}>
                  <input type="checkbox" name="agentIds" value={a.userId} defaultChecked={didAgents.includes(String(a.userId))} />{" "}
                  {t("plugin_calls.dids.agentOf", { name: a.name, username: a.username, number: a.sipNumber })}
                </label>
              ))
            ) : (
              <p className="muted">{t("plugin_calls.config.none")}</p>
            )}
            {didError("agentIds") ? (
              <p className="field-error" id="did-agents-error">
                {t(didError("agentIds")!)}
              </p>
            ) : null}
          </fieldset>
          <div className="field">
            <label htmlFor="did-strategy">{t("plugin_calls.dids.strategy")}</label>
            <select
              id="did-strategy"
              name="strategy"
              defaultValue={didValue("strategy", editingDid?.ringStrategy ?? "ring_all")}
              aria-invalid={didError("strategy") ? true : undefined}
              aria-describedby={`did-strategy-help${didError("strategy") ? " did-strategy-error" : ""}`}
            >
              {RING_STRATEGIES.map((s) => (
                <option key={s} value={s}>
                  {t(`plugin_calls.dids.strategies.${s}`)}
                </option>
              ))}
            </select>
            <p className="muted" id="did-strategy-help">
              {t("plugin_calls.dids.strategyHelp")}
            </p>
            {didError("strategy") ? (
              <p className="field-error" id="did-strategy-error">
                {t(didError("strategy")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="did-timeout">{t("plugin_calls.dids.ringTimeout")}</label>
            <input
              id="did-timeout"
              name="ringTimeout"
              inputMode="numeric"
              defaultValue={didValue("ringTimeout", String(editingDid?.ringTimeoutSeconds ?? DEFAULT_RING_TIMEOUT))}
              aria-invalid={didError("ringTimeout") ? true : undefined}
              aria-describedby={`did-timeout-help${didError("ringTimeout") ? " did-timeout-error" : ""}`}
            />
            <p className="muted" id="did-timeout-help">
              {t("plugin_calls.dids.ringTimeoutHelp")}
            </p>
            {didError("ringTimeout") ? (
              <p className="field-error" id="did-timeout-error">
                {t(didError("ringTimeout")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label>
              <input type="checkbox" name="voicemail" value="1" defaultChecked={voicemailChecked} /> {t("plugin_calls.dids.voicemailOn")}
            </label>
          </div>
          <div className="field">
            <label htmlFor="did-greeting">{t("plugin_calls.dids.greeting")}</label>
            <textarea
              id="did-greeting"
              name="greeting"
              rows={3}
              maxLength={MAX_GREETING}
              defaultValue={didValue("greeting", editingDid?.greeting ?? "")}
              aria-invalid={didError("greeting") ? true : undefined}
              aria-describedby={`did-greeting-help${didError("greeting") ? " did-greeting-error" : ""}`}
            />
            <p className="muted" id="did-greeting-help">
              {t("plugin_calls.dids.greetingHelp")}
            </p>
            {didError("greeting") ? (
              <p className="field-error" id="did-greeting-error">
                {t(didError("greeting")!)}
              </p>
            ) : null}
          </div>
          <button type="submit" className="button primary">
            {t("plugin_calls.dids.save")}
          </button>
        </Form>
      </section>

      <section className="card stack" aria-labelledby="outbound" id="outbound-form">
        <h2 id="outbound">{t("plugin_calls.outbound.title")}</h2>
        <p className="muted">{data.outbound.trunk ? t("plugin_calls.outbound.help", { trunk: data.outbound.trunk }) : t("plugin_calls.outbound.off")}</p>
        {data.outboundSaved ? (
          <p className="notice" role="status">
            {t("plugin_calls.outbound.saved")}
          </p>
        ) : null}
        <Form method="post" className="stack" key={refusalKey(refusedTrunk, `${location.key}-trunk`)} noValidate>
          <input type="hidden" name="intent" value="saveTrunk" />
          <FormMessage result={refusedTrunk} />
          <div className="field">
            <label htmlFor="outbound-trunk">{t("plugin_calls.outbound.trunk")}</label>
            <input
              id="outbound-trunk"
              name="trunk"
              autoComplete="off"
              spellCheck={false}
              defaultValue={trunkValue("trunk")}
              aria-invalid={trunkError("trunk") ? true : undefined}
              aria-describedby={`outbound-trunk-help${trunkError("trunk") ? " outbound-trunk-error" : ""}`}
            />
            <p className="muted" id="outbound-trunk-help">
              {t("plugin_calls.outbound.trunkHelp")}
            </p>
            {trunkError("trunk") ? (
              <p className="field-error" id="outbound-trunk-error">
                {t(trunkError("trunk")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="outbound-prefix">{t("plugin_calls.outbound.prefix")}</label>
            <input
              id="outbound-prefix"
              name="prefix"
              inputMode="tel"
              autoComplete="off"
              defaultValue={trunkValue("prefix")}
              aria-invalid={trunkError("prefix") ? true : undefined}
              aria-describedby={`outbound-prefix-help${trunkError("prefix") ? " outbound-prefix-error" : ""}`}
            />
            <p className="muted" id="outbound-prefix-help">
              {t("plugin_calls.outbound.prefixHelp")}
            </p>
            {trunkError("prefix") ? (
              <p className="field-error" id="outbound-prefix-error">
                {t(trunkError("prefix")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="outbound-caller-id">{t("plugin_calls.outbound.callerId")}</label>
            <select
              id="outbound-caller-id"
              name="callerId"
              defaultValue={trunkValue("callerId")}
              aria-invalid={trunkError("callerId") ? true : undefined}
              aria-describedby={`outbound-caller-id-help${trunkError("callerId") ? " outbound-caller-id-error" : ""}`}
            >
              <option value="">{t("plugin_calls.outbound.callerIdExtension")}</option>
              {data.dids.map((d) => (
                <option key={d.id} value={d.number}>
                  {d.number}
                </option>
              ))}
            </select>
            <p className="muted" id="outbound-caller-id-help">
              {t("plugin_calls.outbound.callerIdHelp")}
            </p>
            {trunkError("callerId") ? (
              <p className="field-error" id="outbound-caller-id-error">
                {t(trunkError("callerId")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="outbound-auth-user">{t("plugin_calls.outbound.authUser")}</label>
            <input
              id="outbound-auth-user"
              name="authUser"
              autoComplete="off"
              spellCheck={false}
              defaultValue={trunkValue("authUser")}
              aria-invalid={trunkError("authUser") ? true : undefined}
              aria-describedby={`outbound-auth-user-help${trunkError("authUser") ? " outbound-auth-user-error" : ""}`}
            />
            <p className="muted" id="outbound-auth-user-help">
              {t("plugin_calls.outbound.authUserHelp")}
            </p>
            {trunkError("authUser") ? (
              <p className="field-error" id="outbound-auth-user-error">
                {t(trunkError("authUser")!)}
              </p>
            ) : null}
          </div>
          <div className="field">
            <label htmlFor="outbound-auth-password">{t("plugin_calls.outbound.authPassword")}</label>
            <input
              id="outbound-auth-password"
              name="authPassword"
              type="password"
              autoComplete="new-password"
              aria-invalid={trunkError("authPassword") ? true : undefined}
              aria-describedby={`outbound-auth-password-help${trunkError("authPassword") ? " outbound-auth-password-error" : ""}`}
            />
            <p className="muted" id="outbound-auth-password-help">
              {t(data.outbound.hasPassword ? "plugin_calls.outbound.authPasswordKept" : "plugin_calls.outbound.authPasswordHelp")}
            </p>
            {trunkError("authPassword") ? (
              <p className="field-error" id="outbound-auth-password-error">
                {t(trunkError("authPassword")!)}
              </p>
            ) : null}
          </div>
          <button type="submit" className="button primary">
            {t("plugin_calls.outbound.save")}
          </button>
        </Form>
      </section>

      <section className="card stack" aria-labelledby="popup" id="popup-form">
        <h2 id="popup">{t("plugin_calls.popup.title")}</h2>
        {data.popupSaved ? (
          <p className="notice" role="status">
            {t("plugin_calls.popup.saved")}
          </p>
        ) : null}
        <Form method="post" className="stack" key={`${location.key}-popup`}>
          <input type="hidden" name="intent" value="savePopup" />
          <div className="field">
            <label>
              <input type="checkbox" name="popupOnCall" value="1" defaultChecked={data.popupOnCall} aria-describedby="popup-help" />{" "}
              {t("plugin_calls.popup.label")}
            </label>
            <p className="muted" id="popup-help">
              {t("plugin_calls.popup.help")}
            </p>
          </div>
          <button type="submit" className="button primary">
            {t("plugin_calls.popup.save")}
          </button>
        </Form>
      </section>
    </section>
  );
}

export const ErrorBoundary = deniedBoundary("plugin_calls.config.denied");
