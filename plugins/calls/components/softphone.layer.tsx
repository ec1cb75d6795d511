// The softphone in the shell (manifest `shellLayer`): around every signed-in page, mounted as long
// as the shell is, so a call goes on from page to page. Loaded only for an agent with an active SIP
// account (spec section 2); sip.js is fetched by the browser only then. Shows the SIP banner
// (connecting orange, 'Connected to call server.' green, 'fail_to_connect' with retry; spec 4 and
// 8), a dialer, and the incoming call's accept / decline prompt.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Outlet, useLoaderData, type ShouldRevalidateFunction } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";
import { pluginForPath } from "~/plugins/registry.server";
import { activeSipAccountOf, sipServer } from "../sip.server";
import type { CallState, Phone, PhoneState } from "./phone.client";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  const isPublic = pluginForPath(new URL(request.url).pathname)?.isPublic;
  if (!ctx.user || isPublic || !ctx.edition.enabled.includes("calls")) return json({ sip: null });
  const account = await activeSipAccountOf(ctx.user.id);
  if (!account) return json({ sip: null }, { headers: { "Cache-Control": "private, no-store" } });
  const server = sipServer();
  return json(
    {
      sip: {
        number: account.sipNumber,
        password: account.password,
        wsUrl: `${server.wsScheme}://${server.host}:${server.wsPort}`,
        domain: server.domain,
        turn: server.turn,
      },
    },
    { headers: { "Cache-Control": "private, no-store" } },
  );
}

/** Not on every navigation: after a change of the call settings (the account may have changed) or a sign-in. */
export const shouldRevalidate: ShouldRevalidateFunction = ({ formAction, defaultShouldRevalidate }) =>
  defaultShouldRevalidate && Boolean(formAction && (formAction.startsWith("/call_config") || formAction === "/" || formAction.startsWith("/login")));

export default function SoftphoneLayer() {
  const { sip } = useLoaderData<typeof loader>();
  return (
    <>
      {sip ? <Softphone key={`${sip.number}:${sip.password}:${sip.wsUrl}`} config={sip} /> : null}
      <Outlet />
    </>
  );
}

type Config = NonNullable<ReturnType<typeof useLoaderData<typeof loader>>["sip"]>;

function Softphone({ config }: { config: Config }) {
  const { t } = useTranslation();
  const [state, setState] = useState<PhoneState>("connecting");
  const [code, setCode] = useState<number | undefined>();
  const [call, setCall] = useState<CallState>({ kind: "idle" });
  const [dismissed, setDismissed] = useState(false);
  const phone = useRef<Phone | null>(null);
  const audio = useRef<HTMLAudioElement>(null);
  const [target, setTarget] = useState("");

  useEffect(() => {
    let cancelled = false;
    let made: Phone | null = null;
    void import("./phone.client").then(({ Phone }) => {
      if (cancelled || !audio.current) return;
      made = new Phone(
        config,
        {
          state: (s, c) => {
            setState(s);
            setCode(c);
            setDismissed(false);
          },
          call: setCall,
        },
        audio.current,
      );
      phone.current = made;
      (window as unknown as { __softphone?: Phone }).__softphone = made;
      void made.start();
    });
    return () => {
      cancelled = true;
      phone.current = null;
      void made?.stop();
    };
  }, [config]);

  const retry = useCallback(() => void phone.current?.start(), []);

  const banner =
    state === "connecting"
      ? { tone: "warning", text: t("plugin_calls.sip.connecting") }
      : state === "connected"
        ? { tone: "success", text: t("plugin_calls.sip.connected") }
        : state === "unauthorized"
          ? { tone: "error", text: t("plugin_calls.sip.unauthorized", { code: code ?? "" }) }
          : { tone: "error", text: t("plugin_calls.sip.failed") };

  return (
    <div className="softphone" data-sip-state={state} data-call-state={call.kind}>
      {/* the remote party's voice */}
      <audio ref={audio} autoPlay />
      {dismissed ? null : (
        <div className={`sip-banner sip-${banner.tone}`} role={banner.tone === "error" ? "alert" : "status"} data-testid="sip-banner">
          <span>{banner.text}</span>
          {state === "failed" || state === "unauthorized" ? (
            <button type="button" className="button" onClick={retry}>
              {t("plugin_calls.sip.retry")}
            </button>
          ) : null}
          <button type="button" className="icon-button" onClick={() => setDismissed(true)} aria-label={t("plugin_calls.sip.dismiss")}>
            ×
          </button>
        </div>
      )}
      {call.kind === "incoming" ? (
        <div className="softphone-incoming" role="alertdialog" aria-labelledby="softphone-incoming-title" data-testid="incoming-call">
          <p id="softphone-incoming-title">{t("plugin_calls.call.incoming", { from: call.from })}</p>
          <button type="button" className="button primary" onClick={() => void phone.current?.accept()}>
            {t("plugin_calls.call.accept")}
          </button>
          <button type="button" className="button danger" onClick={() => void phone.current?.decline()}>
            {t("plugin_calls.call.decline")}
          </button>
        </div>
      ) : null}
      <section className="softphone-panel" aria-label={t("plugin_calls.call.panel", { number: config.number })}>
        {call.kind === "idle" ? (
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              if (target.trim()) void phone.current?.call(target.trim());
            }}
          >
            <label htmlFor="softphone-target">{t("plugin_calls.call.target")}</label>
            <input
              id="softphone-target"
              value={target}
              onChange={(e) => setTarget(e.target.value.replace(/[^\d*#+]/g, ""))}
              inputMode="tel"
              autoComplete="off"
              size={10}
            />
            <button type="submit" className="button primary" disabled={state !== "connected"}>
              {t("plugin_calls.call.dial")}
            </button>
          </form>
        ) : call.kind === "calling" || call.kind === "active" ? (
          <div className="inline-form" role="status">
            <span data-testid="call-status">
              {call.kind === "calling" ? t("plugin_calls.call.calling", { to: call.to }) : t("plugin_calls.call.active", { peer: call.peer })}
            </span>
            <button type="button" className="button danger" onClick={() => void phone.current?.hangUp()}>
              {t("plugin_calls.call.hangUp")}
            </button>
          </div>
        ) : null}
      </section>
    </div>
  );
}
