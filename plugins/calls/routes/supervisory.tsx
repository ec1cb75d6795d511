// /supervisory (admin or view_report): the agents' live state (Ready, Engaged, Incoming, ACW, away,
// offline), the calls waiting and the live calls, rendered on the server (a reload refreshes it
// without JavaScript; with it, every 5 s). Listening in on a live call needs the browser's WebRTC:
// the supervisor's own leg from rtpengine carries both parties' audio (supervision.server.ts).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { Link, useLoaderData, useRevalidator } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { guardPluginRoute } from "~/context.server";
import { deniedBoundary } from "~/components/AdminOnly";
import { TableScroll } from "~/components/TableScroll";
import { pageMeta } from "~/meta";
import { onlineUserIds } from "~/realtime.server";
import { agentBoard, liveCalls, requireSupervisor, waitingCalls } from "../supervision.server";
import { sipServer } from "../sip.server";

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  await requireSupervisor(request);
  const now = Date.now();
  const online = await onlineUserIds();
  const [agents, waiting, live] = await Promise.all([agentBoard(online, now), waitingCalls(now), liveCalls(now)]);
  return json({ agents, waiting, live, now, turn: sipServer().turn }, { headers: { "Cache-Control": "private, no-store" } });
}

export const meta = pageMeta("plugin_calls.menu.supervisory");

export default function Supervisory() {
  const data = useLoaderData<typeof loader>();
  const { t } = useTranslation();
  const revalidator = useRevalidator();
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible" && revalidator.state === "idle") revalidator.revalidate();
    }, 5000);
    return () => clearInterval(timer);
  }, [revalidator]);
  const seconds = (since: number | null) =>
    since == null ? "–" : t("plugin_calls.supervisory.seconds", { n: Math.max(0, Math.round((data.now - since) / 1000)) });
  return (
    <section className="stack supervisory-page">
      <h1>{t("plugin_calls.supervisory.title")}</h1>
      <p className="muted">{t("plugin_calls.supervisory.needsJs")}</p>
      <p>
        <Link to="/supervisory">{t("plugin_calls.supervisory.refresh")}</Link>
      </p>

      <h2 id="supervisory-agents">{t("plugin_calls.supervisory.agents")}</h2>
      {data.agents.length ? (
        <TableScroll label={t("plugin_calls.supervisory.agents")}>
          <table className="payment-table" aria-labelledby="supervisory-agents">
            <thead>
              <tr>
                <th scope="col">{t("plugin_calls.supervisory.agent")}</th>
                <th scope="col">{t("plugin_calls.supervisory.extension")}</th>
                <th scope="col">{t("plugin_calls.supervisory.state")}</th>
                <th scope="col">{t("plugin_calls.supervisory.call")}</th>
                <th scope="col">{t("plugin_calls.supervisory.since")}</th>
              </tr>
            </thead>
            <tbody>
              {data.agents.map((a) => (
                <tr key={a.userId} data-testid={`agent-${a.extension}`} data-state={a.state}>
                  <th scope="row">{a.name || a.username}</th>
                  <td>{a.extension}</td>
                  <td data-testid="agent-state">{t(`plugin_calls.supervisory.states.${a.state}`)}</td>
                  <td>{a.peer || "–"}</td>
                  <td>{seconds(a.since)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">{t("plugin_calls.supervisory.noAgents")}</p>
      )}

      <h2 id="supervisory-waiting">{t("plugin_calls.supervisory.waiting")}</h2>
      {data.waiting.length ? (
        <TableScroll label={t("plugin_calls.supervisory.waiting")}>
          <table className="payment-table" aria-labelledby="supervisory-waiting">
            <thead>
              <tr>
                <th scope="col">{t("plugin_calls.list.ticket")}</th>
                <th scope="col">{t("plugin_calls.supervisory.caller")}</th>
                <th scope="col">{t("plugin_calls.supervisory.did")}</th>
                <th scope="col">{t("plugin_calls.supervisory.agent")}</th>
                <th scope="col">{t("plugin_calls.supervisory.waited")}</th>
              </tr>
            </thead>
            <tbody>
              {data.waiting.map((w) => (
                <tr key={w.ticketNumber} data-testid={`waiting-${w.ticketNumber}`}>
                  <td>
                    <Link to={`/call/${w.ticketNumber}`}>#{w.ticketNumber}</Link>
                  </td>
                  <td>{w.from}</td>
                  <td>{w.to}</td>
                  <td>{w.agent || t("plugin_calls.list.nobody")}</td>
                  <td>{t("plugin_calls.supervisory.seconds", { n: w.waited })}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">{t("plugin_calls.supervisory.noWaiting")}</p>
      )}

      <h2 id="supervisory-live">{t("plugin_calls.supervisory.live")}</h2>
      <ListenIn turn={data.turn} live={data.live} />
    </section>
  );
}

type Live = ReturnType<typeof useLoaderData<typeof loader>>["live"];

/** The live calls with a Listen in button each: one listen-in at a time, stopped on leaving the page. */
function ListenIn({ live, turn }: { live: Live; turn: RTCIceServer[] }) {
  const { t } = useTranslation();
  const audio = useRef<HTMLAudioElement>(null);
  const session = useRef<{ pc: RTCPeerConnection; callId: number; tag: string } | null>(null);
  const [listening, setListening] = useState<{ callId: number; from: string; to: string } | null>(null);
  const [error, setError] = useState("");

  const post = (values: Record<string, string>) => {
    const body = new FormData();
    for (const [k, v] of Object.entries(values)) body.set(k, v);
    return fetch("/supervisory/listen", { method: "POST", body });
  };
  const stop = async () => {
    const s = session.current;
    session.current = null;
    setListening(null);
    if (!s) return;
    s.pc.close();
    if (audio.current) audio.current.srcObject = null;
    await post({ intent: "stop", callId: String(s.callId), tag: s.tag }).catch(() => undefined);
  };
  useEffect(() => () => void stop(), []);
  // the call ended: its listen-in with it
  useEffect(() => {
    if (listening && !live.some((c) => c.id === listening.callId)) void stop();
  }, [live, listening]);

  const start = async (call: Live[number]) => {
    await stop();
    setError("");
    try {
      const offered = await post({ intent: "start", callId: String(call.id) });
      const offer = (await offered.json()) as { sdp?: string; tag?: string; description?: string };
      if (!offered.ok || !offer.sdp || !offer.tag) throw new Error(offer.description || String(offered.status));
      const pc = new RTCPeerConnection({ iceServers: turn });
      const stream = new MediaStream();
      pc.ontrack = (e) => {
        stream.addTrack(e.track);
        if (audio.current) {
          audio.current.srcObject = stream;
          void audio.current.play().catch(() => undefined);
        }
      };
      session.current = { pc, callId: call.id, tag: offer.tag };
      await pc.setRemoteDescription({ type: "offer", sdp: offer.sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      // rtpengine takes the answer whole: wait for the browser's candidates (at most 3 s)
      await new Promise<void>((resolve) => {
        if (pc.iceGatheringState === "complete") return resolve();
        const done = () => pc.iceGatheringState === "complete" && resolve();
        pc.addEventListener("icegatheringstatechange", done);
        setTimeout(resolve, 3000);
      });
      const answered = await post({ intent: "answer", callId: String(call.id), tag: offer.tag, sdp: pc.localDescription?.sdp ?? "" });
      if (!answered.ok) throw new Error(((await answered.json().catch(() => ({}))) as { description?: string }).description || String(answered.status));
      setListening({ callId: call.id, from: call.from, to: call.to });
    } catch (e) {
      await stop();
      setError((e as Error).message);
    }
  };

  // for the e2e test: the audio received so far
  useEffect(() => {
    (window as unknown as { __listenIn?: () => Promise<number> }).__listenIn = async () => {
      let bytes = 0;
      (await session.current?.pc.getStats())?.forEach((r) => {
        if (r.type === "inbound-rtp" && r.kind === "audio") bytes += r.bytesReceived ?? 0;
      });
      return bytes;
    };
  }, []);

  return (
    <div className="stack">
      <audio ref={audio} autoPlay />
      {listening ? (
        <div className="inline-form" role="status" data-testid="listening">
          <span>{t("plugin_calls.supervisory.listening", { from: listening.from, to: listening.to })}</span>
          <button type="button" className="button" onClick={() => void stop()}>
            {t("plugin_calls.supervisory.stop")}
          </button>
        </div>
      ) : null}
      {error ? (
        <p role="alert" className="error">
          {t("plugin_calls.supervisory.failed", { error })}
        </p>
      ) : null}
      {live.length ? (
        <TableScroll label={t("plugin_calls.supervisory.live")}>
          <table className="payment-table" aria-labelledby="supervisory-live">
            <thead>
              <tr>
                <th scope="col">{t("plugin_calls.list.ticket")}</th>
                <th scope="col">{t("plugin_calls.list.caller")}</th>
                <th scope="col">{t("plugin_calls.list.called")}</th>
                <th scope="col">{t("plugin_calls.list.agent")}</th>
                <th scope="col">{t("plugin_calls.list.state")}</th>
                <th scope="col">{t("plugin_calls.list.talk")}</th>
                <th scope="col">{t("plugin_calls.supervisory.listen")}</th>
              </tr>
            </thead>
            <tbody>
              {live.map((c) => (
                <tr key={c.id} data-testid={`live-${c.ticketNumber}`}>
                  <td>
                    <Link to={`/call/${c.ticketNumber}`}>#{c.ticketNumber}</Link>
                  </td>
                  <td>{c.from}</td>
                  <td>{c.to}</td>
                  <td>{c.agent || "–"}</td>
                  <td>{t(`plugin_calls.state.${c.state}`)}</td>
                  <td>{t("plugin_calls.list.seconds", { n: c.talk })}</td>
                  <td>
                    <button
                      type="button"
                      className="button"
                      disabled={listening?.callId === c.id}
                      aria-label={t("plugin_calls.supervisory.listenLabel", { from: c.from, to: c.to })}
                      onClick={() => void start(c)}
                    >
                      {t("plugin_calls.supervisory.listen")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : (
        <p className="muted">{t("plugin_calls.supervisory.noLive")}</p>
      )}
    </div>
  );
}

// a user without the right gets the shell with the reason, not the crash page
export const ErrorBoundary = deniedBoundary("plugin_calls.supervisory.denied");
