// The meeting overlay: it opens the socket and loads the meeting script (meeting.client.ts) first,
// shows how many people are in (getMeetingCount), then Join asks for camera and microphone and
// joins (joinMeeting). Controls are plain buttons (Tab, Enter, Space): mute, camera, share the
// screen, leave; the participant list says who is muted or has the camera off.
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { Socket } from "socket.io-client";
import { CLIENT_EVENTS } from "~/realtime-events";
import type { MeetingSession, Peer } from "./meeting.client";
import { MESH_LIMIT } from "../limits";

type Phase = "loading" | "ready" | "joining" | "in" | "left" | "ended" | "refused" | "failed";

function Video({ stream, muted, label }: { stream: MediaStream; muted?: boolean; label: string }) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    if (ref.current && ref.current.srcObject !== stream) ref.current.srcObject = stream;
  }, [stream]);
  return (
    <figure className="meeting-tile">
      <video ref={ref} autoPlay playsInline muted={muted} aria-label={label} />
      <figcaption>{label}</figcaption>
    </figure>
  );
}

export function MeetingRoom({ token, guest, turn, name }: { token: string; guest: boolean; turn: boolean; name: string }) {
  const { t } = useTranslation();
  const [phase, setPhase] = useState<Phase>("loading");
  const [count, setCount] = useState(0);
  const [reason, setReason] = useState("");
  const [limit, setLimit] = useState(0);
  const [mode, setMode] = useState<"sfu" | "mesh" | null>(null);
  const [people, setPeople] = useState<Peer[]>([]);
  const [streams, setStreams] = useState<Map<number, MediaStream>>(new Map());
  const [local, setLocal] = useState<MediaStream | null>(null);
  const [audio, setAudio] = useState(true);
  const [video, setVideo] = useState(true);
  const [sharing, setSharing] = useState(false);
  const [connected, setConnected] = useState(false);
  const socketRef = useRef<Socket>();
  const moduleRef = useRef<typeof import("./meeting.client")>();
  const sessionRef = useRef<MeetingSession>();

  // the socket and the meeting script, both before anything can be joined
  useEffect(() => {
    let stopped = false;
    let socket: Socket | undefined;
    void Promise.all([import("socket.io-client"), import("./meeting.client")]).then(([{ io }, meeting]) => {
      if (stopped) return;
      moduleRef.current = meeting;
      socket = guest ? io("/meeting") : io();
      socketRef.current = socket;
      const refresh = () =>
        socket!.emit(CLIENT_EVENTS.getMeetingCount, { token }, (a: { ok: boolean; count?: number; ended?: boolean }) => {
          if (a.ok) setCount(a.count ?? 0);
          if (a.ended) setPhase("ended");
        });
      socket.on("connect", () => {
        setConnected(true);
        refresh();
        setPhase((p) => (p === "loading" ? "ready" : p));
      });
      // a lost connection ends the meeting view (spec section 4); Join works again once back
      socket.on("disconnect", () => {
        setConnected(false);
        if (sessionRef.current) {
          sessionRef.current.close();
          sessionRef.current = undefined;
          setPhase("left");
        }
      });
    });
    return () => {
      stopped = true;
      sessionRef.current?.leave();
      socket?.disconnect();
    };
  }, [token, guest]);

  useEffect(() => () => local?.getTracks().forEach((track) => track.stop()), [local]);

  const join = async () => {
    const socket = socketRef.current;
    const meeting = moduleRef.current;
    if (!socket || !meeting) return;
    setPhase("joining");
    let media: MediaStream;
    try {
      media = await navigator.mediaDevices.getUserMedia({ audio: true, video: true });
    } catch {
      setPhase("failed");
      setReason("media");
      return;
    }
    setLocal(media);
    const session = new meeting.MeetingSession(socket, token, media, {
      peers: setPeople,
      stream: (peerId, stream) =>
        setStreams((old) => {
          const next = new Map(old);
          if (stream) next.set(peerId, stream);
          else next.delete(peerId);
          return next;
        }),
      ended: () => {
        sessionRef.current = undefined;
        setPhase("ended");
      },
      // grown past the mesh limit: now through the media server, nobody left
      mode: setMode,
    });
    sessionRef.current = session;
    (window as unknown as { __meeting?: MeetingSession }).__meeting = session;
    const answer = await session.join(name);
    if (!answer.ok) {
      session.close();
      sessionRef.current = undefined;
      media.getTracks().forEach((track) => track.stop());
      setLocal(null);
      setReason(answer.reason);
      setLimit(answer.limit ?? 0);
      setPhase(answer.reason === "ended" ? "ended" : "refused");
      return;
    }
    setMode(answer.mode);
    setPhase("in");
  };

  const leave = () => {
    sessionRef.current?.leave();
    sessionRef.current = undefined;
    local?.getTracks().forEach((track) => track.stop());
    setLocal(null);
    setStreams(new Map());
    setPeople([]);
    setPhase("left");
  };

  const toggle = (kind: "audio" | "video") => {
    const on = kind === "audio" ? !audio : !video;
    sessionRef.current?.setMedia(kind, on);
    (kind === "audio" ? setAudio : setVideo)(on);
  };

  const share = async () => setSharing(Boolean(await sessionRef.current?.shareScreen(!sharing)));

  const me = people[0];
  return (
    <section className="meeting-overlay stack" aria-label={t("plugin_meeting.room.label")}>
      <p className="muted" data-testid="meeting-turn">
        {turn ? t("plugin_meeting.room.turnOn") : t("plugin_meeting.room.turnOff")}
      </p>
      <p role="status" data-testid="meeting-status">
        {phase === "loading"
          ? t("plugin_meeting.room.loading")
          : phase === "ready"
            ? t("plugin_meeting.room.count", { count })
            : phase === "joining"
              ? t("plugin_meeting.room.joining")
              : phase === "in"
                ? mode === "sfu"
                  ? t("plugin_meeting.room.inSfu")
                  : t("plugin_meeting.room.inMesh", { limit: MESH_LIMIT })
                : phase === "left"
                  ? t(connected ? "plugin_meeting.room.left" : "plugin_meeting.room.disconnected")
                  : phase === "ended"
                    ? t("plugin_meeting.refused.ended.title")
                    : phase === "refused"
                      ? t(`plugin_meeting.join.${reason}`, { limit })
                      : t("plugin_meeting.room.noMedia")}
      </p>
      {(phase === "ready" || phase === "left" || phase === "failed" || phase === "refused") && connected ? (
        <div>
          <button type="button" className="button primary" onClick={() => void join()}>
            {t("plugin_meeting.room.join")}
          </button>
        </div>
      ) : null}
      {phase === "in" ? (
        <>
          <div className="meeting-controls" role="toolbar" aria-label={t("plugin_meeting.room.controls")}>
            <button type="button" className="button" aria-pressed={!audio} onClick={() => toggle("audio")}>
              {audio ? t("plugin_meeting.room.mute") : t("plugin_meeting.room.unmute")}
            </button>
            <button type="button" className="button" aria-pressed={!video} onClick={() => toggle("video")}>
              {video ? t("plugin_meeting.room.cameraOff") : t("plugin_meeting.room.cameraOn")}
            </button>
            <button type="button" className="button" aria-pressed={sharing} onClick={() => void share()}>
              {sharing ? t("plugin_meeting.room.stopShare") : t("plugin_meeting.room.share")}
            </button>
            <button type="button" className="button danger" onClick={leave}>
              {t("plugin_meeting.room.leave")}
            </button>
          </div>
          <div className="meeting-grid">
            {local ? <Video stream={local} muted label={t("plugin_meeting.room.you")} /> : null}
            {[...streams].map(([peerId, stream]) => (
              <Video key={peerId} stream={stream} label={people.find((p) => p.peerId === peerId)?.name ?? ""} />
            ))}
          </div>
          <h2 id="meeting-people">{t("plugin_meeting.room.people", { count: people.length })}</h2>
          <ul aria-labelledby="meeting-people" data-testid="meeting-people">
            {people.map((p) => (
              <li key={p.peerId}>
                {p === me ? t("plugin_meeting.room.youAs", { name: p.name }) : p.name}
                {!p.audio ? ` (${t("plugin_meeting.room.muted")})` : ""}
                {!p.video ? ` (${t("plugin_meeting.room.noCamera")})` : ""}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
