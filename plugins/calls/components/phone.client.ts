// The softphone's SIP side in the browser (sip.js over WebSocket to Kamailio): register, keep
// registered, call an extension, take or refuse an incoming call. Loaded only in the browser and
// only for an agent with an active SIP account (softphone.layer.tsx). It re-registers by itself
// within 5 s after the socket or the network drops; a wrong password stops it (no retry storm).
import { Inviter, Registerer, RegistererState, Session, SessionState, UserAgent, type Invitation } from "sip.js";

export type PhoneState = "connecting" | "connected" | "failed" | "unauthorized";
export type CallState = { kind: "idle" } | { kind: "incoming"; from: string } | { kind: "calling"; to: string } | { kind: "active"; peer: string };

export interface PhoneConfig {
  number: string;
  password: string;
  wsUrl: string;
  domain: string;
  turn: { urls: string; username?: string; credential?: string }[];
}

export interface PhoneEvents {
  state(state: PhoneState, code?: number): void;
  call(call: CallState): void;
}

/** Delay before each reconnect after a drop: soon enough to be registered again within 5 s. */
const RETRY_MS = 1500;

export class Phone {
  private ua: UserAgent;
  private registerer: Registerer;
  private session: Session | null = null;
  private retry: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private refused = false;
  private attempts = 0;
  constructor(
    private config: PhoneConfig,
    private events: PhoneEvents,
    private audio: HTMLAudioElement,
  ) {
    this.ua = new UserAgent({
      uri: UserAgent.makeURI(`sip:${config.number}@${config.domain}`),
      transportOptions: { server: config.wsUrl, connectionTimeout: 4 },
      authorizationUsername: config.number,
      authorizationPassword: config.password,
      logLevel: "error",
      sessionDescriptionHandlerFactoryOptions: { peerConnectionConfiguration: { iceServers: config.turn } },
      delegate: {
        onDisconnect: (error) => {
          if (this.stopped) return;
          if (error) this.lost();
        },
        onInvite: (invitation) => this.incoming(invitation),
      },
    });
    this.registerer = new Registerer(this.ua, { expires: 300 });
    this.registerer.stateChange.addListener((state) => {
      if (state === RegistererState.Registered) {
        this.attempts = 0;
        this.events.state("connected");
      }
    });
    this.onOnline = this.onOnline.bind(this);
    window.addEventListener("online", this.onOnline);
  }

  async start() {
    this.refused = false;
    this.events.state("connecting");
    try {
      if (!this.ua.isConnected()) {
        if (this.ua.state === "Started") await this.ua.reconnect();
        else await this.ua.start();
      }
      await this.registerer.register({
        requestDelegate: {
          onReject: (response) => {
            const code = response.message.statusCode;
            // a wrong password (or an account switched off): say so and wait for the agent
            this.refused = code === 401 || code === 403 || code === 407 || code === 404;
            this.events.state(this.refused ? "unauthorized" : "failed", code);
            if (!this.refused) this.lost();
          },
        },
      });
    } catch {
      this.lost();
    }
  }

  /** The socket or the network dropped: connecting again soon (never after a refused password). */
  private lost() {
    if (this.stopped || this.refused) return;
    this.attempts += 1;
    // the banner turns to the failure after a few tries; the retries go on quietly
    this.events.state(this.attempts > 3 ? "failed" : "connecting");
    if (this.retry) return;
    this.retry = setTimeout(
      () => {
        this.retry = null;
        void this.start();
      },
      this.attempts > 3 ? 5000 : RETRY_MS,
    );
  }

  private onOnline() {
    if (this.stopped || this.refused) return;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    void this.start();
  }

  private watch(session: Session, peer: string) {
    this.session = session;
    session.stateChange.addListener((state) => {
      if (state === SessionState.Established) {
        this.events.call({ kind: "active", peer });
        const pc = (session.sessionDescriptionHandler as unknown as { peerConnection?: RTCPeerConnection } | undefined)?.peerConnection;
        if (pc) {
          const stream = new MediaStream();
          pc.getReceivers().forEach((r) => r.track && stream.addTrack(r.track));
          this.audio.srcObject = stream;
          void this.audio.play().catch(() => undefined);
        }
      }
      if (state === SessionState.Terminated) {
        if (this.session === session) this.session = null;
        this.audio.srcObject = null;
        this.events.call({ kind: "idle" });
      }
    });
  }

  private incoming(invitation: Invitation) {
    // one call at a time: a second caller hears busy
    if (this.session) {
      void invitation.reject({ statusCode: 486 });
      return;
    }
    const from = invitation.remoteIdentity.uri.user ?? invitation.remoteIdentity.displayName;
    this.watch(invitation, from);
    this.events.call({ kind: "incoming", from });
  }

  async accept() {
    const s = this.session as Invitation | null;
    if (s && s.state === SessionState.Initial) await s.accept({ sessionDescriptionHandlerOptions: { constraints: { audio: true, video: false } } });
  }

  async decline() {
    const s = this.session as Invitation | null;
    if (s && s.state === SessionState.Initial) await s.reject();
  }

  async call(target: string) {
    if (this.session) return;
    const uri = UserAgent.makeURI(`sip:${target}@${this.config.domain}`);
    if (!uri) return;
    const inviter = new Inviter(this.ua, uri, { sessionDescriptionHandlerOptions: { constraints: { audio: true, video: false } } });
    this.watch(inviter, target);
    this.events.call({ kind: "calling", to: target });
    await inviter.invite({
      requestDelegate: {
        onReject: () => {
          // 404 (no such extension), 480/486: the call ends; the state listener shows idle
        },
      },
    });
  }

  async hangUp() {
    const s = this.session;
    if (!s) return;
    if (s.state === SessionState.Established) await s.bye();
    else if (s instanceof Inviter) await s.cancel();
    else await (s as Invitation).reject();
  }

  /** The inbound audio's RTP packets so far (the e2e test proves media flows). */
  async inboundPackets() {
    const pc = (this.session?.sessionDescriptionHandler as unknown as { peerConnection?: RTCPeerConnection } | undefined)?.peerConnection;
    if (!pc) return 0;
    let packets = 0;
    (await pc.getStats()).forEach((r) => {
      if (r.type === "inbound-rtp" && r.kind === "audio") packets += r.packetsReceived ?? 0;
    });
    return packets;
  }

  async stop() {
    this.stopped = true;
    window.removeEventListener("online", this.onOnline);
    if (this.retry) clearTimeout(this.retry);
    try {
      await this.hangUp();
      if (this.registerer.state === RegistererState.Registered) await this.registerer.unregister();
    } catch {
      // the server may be gone
    }
    await this.ua.stop().catch(() => undefined);
  }
}
