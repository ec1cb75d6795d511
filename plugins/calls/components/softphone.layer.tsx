// The softphone in the shell (manifest `shellLayer`): around every signed-in page, mounted as long
// as the shell is, so a call goes on from page to page. Loaded only for an agent with an active SIP
// account (spec section 2); sip.js is fetched by the browser only then. Shows the SIP banner
// (connecting orange, 'Connected to call server.' green, 'fail_to_connect' with retry; spec 4 and
// 8), a dialer, the incoming call's accept / decline prompt and, on a call, the timer, hold, mute,
// the DTMF keypad, blind and attended transfer (the held party's state shown); after the call, after-call work for acw_seconds (Ready ends it).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Outlet, useLoaderData, type ShouldRevalidateFunction } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { requestContext } from "~/context.server";
import { pluginForPath } from "~/plugins/registry.server";
import { getSettings } from "~/models/settings.server";
import { activeSipAccountOf, sipServer } from "../sip.server";
import type { CallState, Phone, PhoneState } from "./phone.client";

/** Kamailio's reason phrase (403) for a call to an outside number with no outbound trunk set up (sip/kamailio.cfg, route OUTBOUND). */
const NO_TRUNK = "No Outbound Trunk";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const ctx = await requestContext(request, context);
  const isPublic = pluginForPath(new URL(request.url).pathname)?.isPublic;
  if (!ctx.user || isPublic || !ctx.edition.enabled.includes("calls")) return json({ sip: null });
  const account = await activeSipAccountOf(ctx.user.id);
  if (!account) return json({ sip: null }, { headers: { "Cache-Control": "private, no-store" } });
  const server = sipServer();
  const settings = await getSettings();
  return json(
    {
      sip: {
        number: account.sipNumber,
        password: account.password,
        wsUrl: `${server.wsScheme}://${server.host}:${server.wsPort}`,
        domain: server.domain,
        turn: server.turn,
        acwSeconds: Number(settings.acw_seconds) || 0,
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
  /** why the last call placed did not go through */
  const [failure, setFailure] = useState<{ code: number; reason: string } | null>(null);

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
          call: (c) => {
            setCall(c);
            if (c.kind !== "idle") setFailure(null);
          },
          callFailed: (c, reason) => setFailure({ code: c, reason }),
        },
        audio.current,
      );
      made.onAfterCallWork = (callId, seconds) => {
        const body = new FormData();
        body.set("callId", callId);
        body.set("seconds", String(seconds));
        void fetch("/call/acw", { method: "POST", body }).catch(() => undefined);
      };
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
  const [now, setNow] = useState(() => Date.now());
  const ticking = call.kind === "active" || call.kind === "acw";
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  const [tones, setTones] = useState("");
  const [transferTo, setTransferTo] = useState("");
  const [consultTo, setConsultTo] = useState("");
  const [transferFailed, setTransferFailed] = useState(false);
  useEffect(() => {
    if (call.kind !== "active") setTones("");
  }, [call.kind]);
  const clock = (ms: number) => {
    const s = Math.max(0, Math.floor(ms / 1000));
    return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  };

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
            {failure && failure.code !== 487 ? (
              <p role="alert" data-testid="call-failed">
                {failure.code === 403 && failure.reason === NO_TRUNK ? t("plugin_calls.call.noTrunk") : t("plugin_calls.call.failed", failure)}
              </p>
            ) : null}
          </form>
        ) : call.kind === "calling" ? (
          <div className="inline-form">
            <span data-testid="call-status" role="status">
              {t("plugin_calls.call.calling", { to: call.to })}
            </span>
            <button type="button" className="button danger" onClick={() => void phone.current?.hangUp()}>
              {t("plugin_calls.call.hangUp")}
            </button>
          </div>
        ) : call.kind === "active" ? (
          <div className="stack">
            <div className="inline-form">
              <span data-testid="call-status" role="status">
                {call.held ? t("plugin_calls.call.held", { peer: call.peer }) : t("plugin_calls.call.active", { peer: call.peer })}
              </span>
              <span data-testid="call-timer">{t("plugin_calls.call.timer", { time: clock(now - call.since) })}</span>
              {call.muted ? <span role="status">{t("plugin_calls.call.muted")}</span> : null}
            </div>
            <div className="inline-form">
              <button type="button" className="button" aria-pressed={call.held} onClick={() => void phone.current?.hold(!call.held)}>
                {call.held ? t("plugin_calls.call.resume") : t("plugin_calls.call.hold")}
              </button>
              <button type="button" className="button" aria-pressed={call.muted} onClick={() => phone.current?.mute(!call.muted)}>
                {call.muted ? t("plugin_calls.call.unmute") : t("plugin_calls.call.mute")}
              </button>
              <button type="button" className="button danger" onClick={() => void phone.current?.hangUp()}>
                {t("plugin_calls.call.hangUp")}
              </button>
            </div>
            <details>
              <summary>{t("plugin_calls.call.keypad")}</summary>
              <div className="softphone-keypad" role="group" aria-label={t("plugin_calls.call.keypad")}>
                {["1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "0", "#"].map((d) => (
                  <button
                    key={d}
                    type="button"
                    className="button"
                    aria-label={t("plugin_calls.call.digit", { digit: d })}
                    onClick={() => {
                      if (phone.current?.dtmf(d)) setTones((v) => (v + d).slice(-32));
                    }}
                  >
                    {d}
                  </button>
                ))}
              </div>
              {tones ? (
                <p role="status" data-testid="dtmf-sent">
                  {t("plugin_calls.call.dtmfSent", { digits: tones })}
                </p>
              ) : null}
            </details>
            <form
              className="inline-form"
              onSubmit={(e) => {
                e.preventDefault();
                if (transferTo.trim()) void phone.current?.transfer(transferTo.trim());
              }}
            >
              <label htmlFor="softphone-transfer">{t("plugin_calls.call.transferTo")}</label>
              <input
                id="softphone-transfer"
                value={transferTo}
                onChange={(e) => setTransferTo(e.target.value.replace(/[^\d*#+]/g, ""))}
                inputMode="tel"
                autoComplete="off"
                size={10}
              />
              <button type="submit" className="button">
                {t("plugin_calls.call.transfer")}
              </button>
            </form>
            {call.consult ? (
              <div className="stack" data-testid="consult">
                <span role="status">
                  {t("plugin_calls.attended.consulting", { target: call.consult.target })} · {t("plugin_calls.attended.held", { peer: call.peer })}
                </span>
                <div className="inline-form">
                  <button
                    type="button"
                    className="button primary"
                    disabled={!call.consult.connected}
                    onClick={() => void phone.current?.completeTransfer().then((ok) => setTransferFailed(!ok))}
                  >
                    {t("plugin_calls.attended.complete")}
                  </button>
                  <button type="button" className="button" onClick={() => void phone.current?.cancelConsult()}>
                    {t("plugin_calls.attended.back", { peer: call.peer })}
                  </button>
                </div>
              </div>
            ) : (
              <form
                className="inline-form"
                onSubmit={(e) => {
                  e.preventDefault();
                  setTransferFailed(false);
                  if (consultTo.trim()) void phone.current?.consult(consultTo.trim());
                }}
              >
                <label htmlFor="softphone-consult">{t("plugin_calls.attended.consultTo")}</label>
                <input
                  id="softphone-consult"
                  value={consultTo}
                  onChange={(e) => setConsultTo(e.target.value.replace(/[^\d*#+]/g, ""))}
                  inputMode="tel"
                  autoComplete="off"
                  size={10}
                />
                <button type="submit" className="button">
                  {t("plugin_calls.attended.consult")}
                </button>
              </form>
            )}
            {transferFailed ? <p role="alert">{t("plugin_calls.attended.failed")}</p> : null}
          </div>
        ) : call.kind === "acw" ? (
          <div className="inline-form">
            <span data-testid="call-status">{t("plugin_calls.call.acw", { seconds: Math.max(0, Math.ceil((call.until - now) / 1000)) })}</span>
            <button type="button" className="button primary" onClick={() => phone.current?.ready()}>
              {t("plugin_calls.call.ready")}
            </button>
          </div>
        ) : null}
      </section>
    </div>
  );
}
