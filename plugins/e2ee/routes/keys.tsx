// /e2ee/keys: this user's end-to-end encryption key. The server shows what it holds (the published
// key's fingerprint, whether a passphrase-sealed backup exists); the forms that make a key or
// restore it from the backup, or change the backup's passphrase, run only in the browser (the
// passphrase never leaves it), so without JavaScript the page says that these need JavaScript.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json, redirect } from "@remix-run/node";
import { useLoaderData, useRevalidator } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { pageMeta } from "~/meta";
import { currentKey, getBackup } from "../e2ee.server";
import { ApiError, changePassphrase, loadIdentity, restoreKey, setUpKey, WrongPassphrase } from "../components/keystore";
import { e2eeClient } from "../components/running";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { ctx } = await guardPluginRoute(request, context);
  if (!ctx.user) throw redirect("/");
  const [key, backup] = await Promise.all([currentKey(ctx.user.id), getBackup(ctx.user.id)]);
  return json(
    { userId: ctx.user.id, fingerprint: key?.fingerprint ?? null, backupIterations: backup?.iterations ?? null },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

export const meta = pageMeta("plugin_e2ee.keys.title");

const MIN_PASSPHRASE = 10;
/** A fingerprint as groups of four, easier to read aloud. */
const grouped = (hex: string) => hex.match(/.{1,4}/g)?.join(" ") ?? hex;

export default function Keys() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const revalidator = useRevalidator();
  // null until the browser has looked (and always without JavaScript)
  const [here, setHere] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  useEffect(() => {
    void loadIdentity(data.userId)
      .then((identity) => setHere(!!identity && identity.fingerprint === data.fingerprint))
      .catch(() => setHere(false));
  }, [data.userId, data.fingerprint]);

  const run = (work: () => Promise<string>, done: string) => async (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const pass = String(new FormData(form).get("passphrase") ?? "");
    const again = form.elements.namedItem("confirm") as HTMLInputElement | null;
    if (pass.length < MIN_PASSPHRASE) return setMessage({ text: t("plugin_e2ee.keys.short"), error: true });
    if (again && again.value !== pass) return setMessage({ text: t("plugin_e2ee.keys.mismatch"), error: true });
    setBusy(true);
    setMessage({ text: t("plugin_e2ee.keys.working"), error: false });
    try {
      await work();
      form.reset();
      setHere(true);
      setMessage({ text: t(done), error: false });
      e2eeClient()?.reset();
      revalidator.revalidate();
    } catch {
      setMessage({ text: t("plugin_e2ee.keys.wrong"), error: true });
    } finally {
      setBusy(false);
    }
  };

  /** A new passphrase for the stored backup: opened here with the current one, sealed again, stored. */
  const change = async (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    const [current, next, again] = ["current", "passphrase", "confirm"].map((name) => String(fields.get(name) ?? ""));
    if (next.length < MIN_PASSPHRASE) return setMessage({ text: t("plugin_e2ee.keys.short"), error: true });
    if (again !== next) return setMessage({ text: t("plugin_e2ee.keys.mismatch"), error: true });
    if (next === current) return setMessage({ text: t("plugin_e2ee.keys.sameNew"), error: true });
    setBusy(true);
    setMessage({ text: t("plugin_e2ee.keys.working"), error: false });
    try {
      await changePassphrase(current, next);
      form.reset();
      setMessage({ text: t("plugin_e2ee.keys.changed"), error: false });
      revalidator.revalidate();
    } catch (error) {
      const text =
        error instanceof WrongPassphrase
          ? t("plugin_e2ee.keys.wrongCurrent")
          : error instanceof ApiError && error.code?.startsWith("plugin_e2ee.")
            ? t(error.code)
            : t("plugin_e2ee.keys.changeFailed", { error: error instanceof Error ? error.message : String(error) });
      setMessage({ text, error: true });
    } finally {
      setBusy(false);
    }
  };

  const passphrase = (name: string, label: string, autoComplete = name === "confirm" ? "new-password" : "current-password") => (
    <label>
      {label}
      <input type="password" name={name} autoComplete={autoComplete} minLength={MIN_PASSPHRASE} required />
    </label>
  );

  return (
    <section className="stack narrow">
      <h1>{t("plugin_e2ee.keys.title")}</h1>
      <p>{data.fingerprint ? t("plugin_e2ee.keys.published", { fingerprint: grouped(data.fingerprint) }) : t("plugin_e2ee.keys.none")}</p>
      <p>{data.backupIterations ? t("plugin_e2ee.keys.backup", { iterations: data.backupIterations.toLocaleString() }) : t("plugin_e2ee.keys.noBackup")}</p>
      {here === null ? (
        <>
          <p className="notice">{t("plugin_e2ee.keys.needsJs")}</p>
          {data.backupIterations ? <p className="notice">{t("plugin_e2ee.keys.changeNeedsJs")}</p> : null}
        </>
      ) : (
        <>
          <p role="status" data-key-here={here ? "yes" : "no"}>
            {here ? t("plugin_e2ee.keys.hereOk") : t("plugin_e2ee.keys.hereNone")}
          </p>
          {message ? (
            <p className={message.error ? "form-error" : "notice"} role={message.error ? "alert" : "status"}>
              {message.text}
            </p>
          ) : null}
          {!here && data.fingerprint && data.backupIterations ? (
            <form
              className="stack"
              aria-labelledby="restore-title"
              onSubmit={(event) => {
                const pass = String(new FormData(event.currentTarget).get("passphrase") ?? "");
                return run(() => restoreKey(data.userId, pass), "plugin_e2ee.keys.restored")(event);
              }}
            >
              <h2 id="restore-title">{t("plugin_e2ee.keys.restoreTitle")}</h2>
              <p>{t("plugin_e2ee.keys.restoreIntro")}</p>
              {passphrase("passphrase", t("plugin_e2ee.keys.passphrase"))}
              <div>
                <button type="submit" className="button primary" disabled={busy}>
                  {t("plugin_e2ee.keys.restore")}
                </button>
              </div>
            </form>
          ) : null}
          {data.fingerprint && data.backupIterations ? (
            <form className="stack" aria-labelledby="change-title" onSubmit={(event) => void change(event)}>
              <h2 id="change-title">{t("plugin_e2ee.keys.changeTitle")}</h2>
              <p>{t("plugin_e2ee.keys.changeIntro")}</p>
              {passphrase("current", t("plugin_e2ee.keys.current"))}
              {passphrase("passphrase", t("plugin_e2ee.keys.newPassphrase"), "new-password")}
              {passphrase("confirm", t("plugin_e2ee.keys.newConfirm"))}
              <div>
                <button type="submit" className="button" disabled={busy}>
                  {t("plugin_e2ee.keys.change")}
                </button>
              </div>
            </form>
          ) : null}
          <form
            className="stack"
            aria-labelledby="setup-title"
            onSubmit={(event) => {
              const pass = String(new FormData(event.currentTarget).get("passphrase") ?? "");
              return run(() => setUpKey(data.userId, pass), "plugin_e2ee.keys.created")(event);
            }}
          >
            <h2 id="setup-title">{t("plugin_e2ee.keys.setupTitle")}</h2>
            <p>{t("plugin_e2ee.keys.setupIntro")}</p>
            {data.fingerprint ? <p className="notice">{t("plugin_e2ee.keys.replaceWarning")}</p> : null}
            {passphrase("passphrase", t("plugin_e2ee.keys.passphrase"))}
            {passphrase("confirm", t("plugin_e2ee.keys.confirm"))}
            <div>
              <button type="submit" className="button" disabled={busy}>
                {t("plugin_e2ee.keys.create")}
              </button>
            </div>
          </form>
        </>
      )}
    </section>
  );
}
