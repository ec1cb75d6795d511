// The meeting's WebRTC side, loaded lazily by the meeting page (spec section 4: joining loads the
// meeting scripts). Two ways for the media, as the server says on join:
// - mesh: one RTCPeerConnection per other person; the newcomer offers to everyone already in,
//   offers, answers and ICE candidates travel as meetingSignal over the socket;
// - sfu: one connection publishing to Janus (meetingPublish), and one per other person's feed,
//   offered by Janus (meetingFeed) and answered here (meetingFeedAnswer); candidates go to Janus
//   as meetingTrickle. A mesh meeting that grows past its limit turns sfu (meetingMode): the
//   direct connections close and this page publishes to Janus, without leaving.
// ICE is trickled both ways: a description is sent at once and each candidate as it is found, so
// a slow candidate (a TURN relay) never holds up the first media.
import type { Socket } from "socket.io-client";
import { CLIENT_EVENTS, SERVER_EVENTS } from "~/realtime-events";

export interface Peer {
  peerId: number;
  name: string;
  audio: boolean;
  video: boolean;
}
export type JoinAnswer =
  | {
      ok: true;
      peerId: number;
      mode: "sfu" | "mesh";
      limit: number;
      peers: Peer[];
      iceServers: RTCIceServer[];
      iceTransportPolicy?: RTCIceTransportPolicy;
      turn: boolean;
    }
  | { ok: false; reason: "notFound" | "ended" | "notInvited" | "full"; limit?: number };

export interface MeetingEvents {
  peers(list: Peer[]): void;
  stream(peerId: number, stream: MediaStream | null): void;
  ended(): void;
  /** the meeting moved to Janus */
  mode?(mode: "sfu" | "mesh"): void;
}

/** What signalling did and when (performance.now()): the page's tests read it to see trickle at work. */
export type SignalStep = { at: number; step: "description" | "candidate" | "gathered"; to: string };

const emit = <T>(socket: Socket, event: string, payload: unknown) => new Promise<T>((resolve) => socket.emit(event, payload, resolve));

export class MeetingSession {
  /** per other person (mesh) or per received feed (sfu) */
  private pcs = new Map<number, RTCPeerConnection>();
  private publisher: RTCPeerConnection | null = null;
  private people = new Map<number, Peer>();
  private iceServers: RTCIceServer[] = [];
  private policy: RTCIceTransportPolicy = "all";
  private screen: MediaStream | null = null;
  /** remote candidates that came before their connection's remote description */
  private early = new WeakMap<RTCPeerConnection, RTCIceCandidateInit[]>();
  me: Peer | null = null;
  mode: "sfu" | "mesh" = "mesh";
  signalLog: SignalStep[] = [];
  private off: (() => void)[] = [];

  constructor(
    private socket: Socket,
    private token: string,
    private local: MediaStream,
    private on: MeetingEvents,
    /** "relay": media only through TURN (the page can ask for it; the server can require it) */
    private forcePolicy?: RTCIceTransportPolicy,
  ) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private listen(event: string, handler: (payload: any) => void) {
    this.socket.on(event, handler);
    this.off.push(() => this.socket.off(event, handler));
  }

  private tell() {
    this.on.peers([...(this.me ? [this.me] : []), ...this.people.values()]);
  }

  private logStep(step: SignalStep["step"], to: string) {
    this.signalLog.push({ at: performance.now(), step, to });
  }

  async join(name: string): Promise<JoinAnswer> {
    const answer = await emit<JoinAnswer>(this.socket, CLIENT_EVENTS.joinMeeting, { token: this.token });
    if (!answer.ok) return answer;
    this.mode = answer.mode;
    this.iceServers = answer.iceServers;
    this.policy = this.forcePolicy ?? answer.iceTransportPolicy ?? "all";
    this.me = { peerId: answer.peerId, name, audio: true, video: true };
    for (const p of answer.peers) this.people.set(p.peerId, p);
    this.tell();
    this.listen(SERVER_EVENTS.meetingPeerJoined, (p: Peer) => {
      if (p.peerId === this.me?.peerId) return;
      this.people.set(p.peerId, p);
      this.tell();
    });
    this.listen(SERVER_EVENTS.meetingPeerLeft, ({ peerId }: { peerId: number }) => {
      this.people.delete(peerId);
      this.pcs.get(peerId)?.close();
      this.pcs.delete(peerId);
      this.on.stream(peerId, null);
      this.tell();
    });
    this.listen(SERVER_EVENTS.meetingEnded, () => {
      this.close();
      this.on.ended();
    });
    this.listen(SERVER_EVENTS.meetingSignal, (s: { from: number; description?: RTCSessionDescriptionInit; candidate?: RTCIceCandidateInit }) => {
      if (this.mode === "mesh") void this.signal(s);
    });
    this.listen(SERVER_EVENTS.meetingFeed, (f: { peerId: number; sdp: string }) => void this.feed(f.peerId, f.sdp));
    this.listen(SERVER_EVENTS.meetingMode, ({ mode }: { mode: "sfu" | "mesh" }) => {
      if (mode === "sfu" && this.mode === "mesh") void this.toSfu();
    });
    if (this.mode === "mesh") for (const p of answer.peers) void this.offerTo(p.peerId);
    else await this.publish();
    return answer;
  }

  /** The meeting moved to Janus: the direct connections close, this browser publishes there. */
  private async toSfu() {
    this.mode = "sfu";
    for (const [peerId, pc] of this.pcs) {
      pc.close();
      this.on.stream(peerId, null);
    }
    this.pcs.clear();
    this.on.mode?.("sfu");
    await this.publish();
  }

  private newConnection() {
    return new RTCPeerConnection({ iceServers: this.iceServers, iceTransportPolicy: this.policy });
  }

  /** Sends each local candidate as it is found (`send(null)`: all found). */
  private trickle(pc: RTCPeerConnection, to: string, send: (candidate: RTCIceCandidateInit | null) => void) {
    pc.addEventListener("icecandidate", (e) => {
      if (e.candidate) {
        this.logStep("candidate", to);
        send(e.candidate.toJSON());
      } else send(null);
    });
    pc.addEventListener("icegatheringstatechange", () => {
      if (pc.iceGatheringState === "complete") this.logStep("gathered", to);
    });
  }

  private async remoteDescription(pc: RTCPeerConnection, description: RTCSessionDescriptionInit) {
    await pc.setRemoteDescription(description);
    for (const c of this.early.get(pc) ?? []) await pc.addIceCandidate(c).catch(() => undefined);
    this.early.delete(pc);
  }

  private async remoteCandidate(pc: RTCPeerConnection, candidate: RTCIceCandidateInit) {
    if (!pc.remoteDescription) this.early.set(pc, [...(this.early.get(pc) ?? []), candidate]);
    else await pc.addIceCandidate(candidate).catch(() => undefined);
  }

  private connection(peerId: number, send: boolean) {
    this.pcs.get(peerId)?.close();
    const pc = this.newConnection();
    this.pcs.set(peerId, pc);
    if (send) for (const track of this.local.getTracks()) pc.addTrack(this.screenFor(track), this.local);
    else {
      pc.addTransceiver("audio", { direction: "recvonly" });
      pc.addTransceiver("video", { direction: "recvonly" });
    }
    const remote = new MediaStream();
    pc.ontrack = (e) => {
      remote.addTrack(e.track);
      this.on.stream(peerId, remote);
    };
    this.trickle(pc, `peer:${peerId}`, (candidate) => {
      if (candidate) this.socket.emit(CLIENT_EVENTS.meetingSignal, { to: peerId, candidate });
    });
    return pc;
  }

  /** The screen's track instead of the camera's while sharing. */
  private screenFor(track: MediaStreamTrack) {
    return track.kind === "video" && this.screen ? this.screen.getVideoTracks()[0] : track;
  }

  private async offerTo(peerId: number) {
    const pc = this.connection(peerId, true);
    await pc.setLocalDescription(await pc.createOffer());
    this.logStep("description", `peer:${peerId}`);
    this.socket.emit(CLIENT_EVENTS.meetingSignal, { to: peerId, description: pc.localDescription });
  }

  private async signal({ from, description, candidate }: { from: number; description?: RTCSessionDescriptionInit; candidate?: RTCIceCandidateInit }) {
    if (candidate) {
      const pc = this.pcs.get(from);
      if (pc) await this.remoteCandidate(pc, candidate);
      return;
    }
    if (!description) return;
    if (description.type === "offer") {
      const pc = this.connection(from, true);
      await this.remoteDescription(pc, description);
      await pc.setLocalDescription(await pc.createAnswer());
      this.logStep("description", `peer:${from}`);
      this.socket.emit(CLIENT_EVENTS.meetingSignal, { to: from, description: pc.localDescription });
    } else if (description.type === "answer") {
      const pc = this.pcs.get(from);
      if (pc) await this.remoteDescription(pc, description);
    }
  }

  private async publish() {
    this.publisher?.close();
    const pc = this.newConnection();
    this.publisher = pc;
    for (const track of this.local.getTracks()) pc.addTransceiver(this.screenFor(track), { direction: "sendonly", streams: [this.local] });
    // the offer goes first; the candidates found meanwhile follow it on the same socket
    this.trickle(pc, "janus", (candidate) => this.socket.emit(CLIENT_EVENTS.meetingTrickle, { candidate }));
    await pc.setLocalDescription(await pc.createOffer());
    this.logStep("description", "janus");
    const answer = await emit<{ ok: boolean; sdp?: string }>(this.socket, CLIENT_EVENTS.meetingPublish, { sdp: pc.localDescription!.sdp });
    if (answer.ok && answer.sdp && this.publisher === pc) await pc.setRemoteDescription({ type: "answer", sdp: answer.sdp });
  }

  private async feed(peerId: number, sdp: string) {
    this.pcs.get(peerId)?.close();
    const pc = this.newConnection();
    this.pcs.set(peerId, pc);
    const remote = new MediaStream();
    pc.ontrack = (e) => {
      remote.addTrack(e.track);
      this.on.stream(peerId, remote);
    };
    this.trickle(pc, `feed:${peerId}`, (candidate) => this.socket.emit(CLIENT_EVENTS.meetingTrickle, { peerId, candidate }));
    await pc.setRemoteDescription({ type: "offer", sdp });
    await pc.setLocalDescription(await pc.createAnswer());
    this.logStep("description", `feed:${peerId}`);
    this.socket.emit(CLIENT_EVENTS.meetingFeedAnswer, { peerId, sdp: pc.localDescription!.sdp });
  }

  /** Every connection that sends this browser's media. */
  private senders() {
    const pcs = this.mode === "sfu" ? (this.publisher ? [this.publisher] : []) : [...this.pcs.values()];
    return pcs.flatMap((pc) => pc.getSenders());
  }

  setMedia(kind: "audio" | "video", on: boolean) {
    for (const track of this.local.getTracks()) if (track.kind === kind) track.enabled = on;
    if (this.me) this.me = { ...this.me, [kind]: on };
    this.socket.emit(CLIENT_EVENTS.meetingMedia, { [kind]: on });
    this.tell();
  }

  /** Shares the screen instead of the camera (false: back to the camera); false when the browser refused. */
  async shareScreen(on: boolean) {
    const camera = this.local.getVideoTracks()[0];
    if (on) {
      try {
        this.screen = await navigator.mediaDevices.getDisplayMedia({ video: true });
      } catch {
        return false;
      }
      const track = this.screen.getVideoTracks()[0];
      track.addEventListener("ended", () => void this.shareScreen(false));
      for (const s of this.senders()) if (s.track?.kind === "video") await s.replaceTrack(track);
      return true;
    }
    for (const t of this.screen?.getTracks() ?? []) t.stop();
    this.screen = null;
    for (const s of this.senders()) if (s.track?.kind === "video" || (!s.track && camera)) await s.replaceTrack(camera ?? null);
    return false;
  }

  /** Bytes and packets received so far, per kind, over every connection (what the tests and the page's figures read). */
  async inbound() {
    const sum = { audio: { bytes: 0, packets: 0 }, video: { bytes: 0, packets: 0 } };
    for (const pc of this.pcs.values()) {
      const stats = await pc.getStats();
      stats.forEach((s: { type: string; kind?: "audio" | "video"; bytesReceived?: number; packetsReceived?: number }) => {
        if (s.type === "inbound-rtp" && s.kind) {
          sum[s.kind].bytes += s.bytesReceived ?? 0;
          sum[s.kind].packets += s.packetsReceived ?? 0;
        }
      });
    }
    return sum;
  }

  connections() {
    return [...this.pcs.values(), ...(this.publisher ? [this.publisher] : [])];
  }

  close() {
    for (const f of this.off) f();
    this.off = [];
    for (const pc of this.pcs.values()) pc.close();
    this.pcs.clear();
    this.publisher?.close();
    this.publisher = null;
    for (const t of this.screen?.getTracks() ?? []) t.stop();
  }

  leave() {
    this.socket.emit(CLIENT_EVENTS.leaveMeeting, {});
    this.close();
  }
}
