// The softphone's SIP side in the browser (sip.js over WebSocket to Kamailio): register, keep
// registered, call an extension, take or refuse an incoming call. Loaded only in the browser and
// only for an agent with an active SIP account (softphone.layer.tsx). It re-registers by itself
// within 5 s after the socket or the network drops; a wrong password stops it (no retry storm).
// On a call: hold and resume (a re-INVITE, sendonly), mute (the microphone's track off), DTMF
// tones (RFC 4733 through rtpengine), blind transfer (REFER: the other party calls the target) and
// attended transfer: the other party on hold, a consultation call to the target, then REFER with
// Replaces (the other party calls the target, whose phone swaps the consultation call for it).
import { Inviter, Registerer, RegistererState, Session, SessionState, SIPExtension, UserAgent, type Invitation, type Referral } from "sip.js";

export type PhoneState = "connecting" | "connected" | "failed" | "unauthorized";
export type CallState =
  | { kind: "idle" }
  | { kind: "incoming"; from: string }
  | { kind: "calling"; to: string }
  | {
      kind: "active";
      peer: string;
      held: boolean;
      muted: boolean;
      since: number;
      callId: string;
      /** an attended transfer's consultation call while `peer` waits on hold */
      consult?: { target: string; connected: boolean };
    }
  /** the call ended: after-call work until `until` (acw_seconds), then Ready */
  | { kind: "acw"; callId: string; until: number; startedAt: number };

export interface PhoneConfig {
  number: string;
  password: string;
  wsUrl: string;
  domain: string;
  turn: { urls: string; username?: string; credential?: string }[];
  /** after-call work after each answered call, in seconds (spec: acw_seconds, default 30) */
  acwSeconds?: number;
}

export interface PhoneEvents {
  state(state: PhoneState, code?: number): void;
  call(call: CallState): void;
  /** the call this phone placed was refused (404 no such number, 403 "No Outbound Trunk", busy, ...) */
  callFailed?(code: number, reason: string): void;
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
  private acwSeconds: number;
  private current: Extract<CallState, { kind: "active" }> | null = null;
  private acwTimer: ReturnType<typeof setTimeout> | null = null;
  /** the call's ACW is over: (callId, seconds spent) */
  onAfterCallWork: ((callId: string, seconds: number) => void) | null = null;
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
      // the Contact's user is the extension: a call from the trunk rings several agents, and the
      // call server tells the product who answered by the 200 OK's Contact (sip/kamailio.cfg)
      contactName: config.number,
      logLevel: "error",
      // an attended transfer's INVITE with Replaces takes over this phone's call (RFC 3891)
      sipExtensionReplaces: SIPExtension.Supported,
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
    this.acwSeconds = config.acwSeconds ?? 30;
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

  private show(call: CallState) {
    this.current = call.kind === "active" ? call : null;
    this.events.call(call);
  }

  private watch(session: Session, peer: string) {
    this.session = session;
    let answered = false;
    session.delegate = { onRefer: (referral) => void this.referred(referral) };
    session.stateChange.addListener((state) => {
      if (state === SessionState.Established) {
        answered = true;
        this.show({ kind: "active", peer, held: false, muted: false, since: Date.now(), callId: this.callIdOf(session) });
        this.hear(session);
      }
      if (state === SessionState.Terminated) {
        if (this.session !== session) return;
        this.session = null;
        this.audio.srcObject = null;
        if (answered && this.acwSeconds > 0) this.startAcw(this.callIdOf(session));
        else this.show({ kind: "idle" });
      }
    });
  }

  /** Plays the session's remote audio. */
  private hear(session: Session) {
    const pc = (session.sessionDescriptionHandler as unknown as { peerConnection?: RTCPeerConnection } | undefined)?.peerConnection;
    if (!pc) return;
    const stream = new MediaStream();
    pc.getReceivers().forEach((r) => r.track && stream.addTrack(r.track));
    this.audio.srcObject = stream;
    void this.audio.play().catch(() => undefined);
  }

  private callIdOf(session: Session) {
    return session instanceof Inviter ? session.request.callId : (session as Invitation).request.callId;
  }

  /** After-call work: the agent is not offered calls until it ends (by itself or with Ready). */
  private startAcw(callId: string) {
    const startedAt = Date.now();
    const until = startedAt + this.acwSeconds * 1000;
    this.show({ kind: "acw", callId, until, startedAt });
    if (this.acwTimer) clearTimeout(this.acwTimer);
    this.acwTimer = setTimeout(() => this.ready(), this.acwSeconds * 1000);
    this.acwState = { callId, startedAt };
  }
  private acwState: { callId: string; startedAt: number } | null = null;

  /** Ends after-call work now (or when its time is up): the agent takes calls again. */
  ready() {
    if (this.acwTimer) clearTimeout(this.acwTimer);
    this.acwTimer = null;
    const acw = this.acwState;
    this.acwState = null;
    if (acw) this.onAfterCallWork?.(acw.callId, Math.round((Date.now() - acw.startedAt) / 1000));
    this.show({ kind: "idle" });
  }

  private incoming(invitation: Invitation) {
    // an attended transfer: this INVITE (with Replaces) takes over our current call, at once
    const replacee = (invitation as unknown as { _replacee?: Session })._replacee;
    if (replacee && replacee === this.session) {
      const from = invitation.remoteIdentity.uri.user ?? invitation.remoteIdentity.displayName;
      this.watch(invitation, from);
      // accepting BYEs the replaced call (sip.js); the watch above ignores that call's end
      void invitation.accept({ sessionDescriptionHandlerOptions: { constraints: { audio: true, video: false } } });
      return;
    }
    // one call at a time, none during after-call work: a second caller hears busy
    if (this.session || this.acwState) {
      void invitation.reject({ statusCode: 486 });
      return;
    }
    const from = invitation.remoteIdentity.uri.user ?? invitation.remoteIdentity.displayName;
    this.watch(invitation, from);
    this.show({ kind: "incoming", from });
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
    this.show({ kind: "calling", to: target });
    await inviter.invite({
      requestDelegate: {
        onReject: (response) => {
          // 404 (no such extension), 480/486, 403 (no outbound trunk): the call ends (the state
          // listener shows idle) and the panel says why
          this.events.callFailed?.(response.message.statusCode ?? 0, response.message.reasonPhrase ?? "");
        },
      },
    });
  }

  /** Hold (a re-INVITE with sendonly; the other side hears nothing) or take the call off hold. */
  async hold(on: boolean) {
    const s = this.session;
    if (!s || s.state !== SessionState.Established || !this.current) return;
    s.sessionDescriptionHandlerOptionsReInvite = { hold: on } as typeof s.sessionDescriptionHandlerOptionsReInvite;
    await s.invite({
      requestDelegate: {
        onAccept: () => this.current && this.show({ ...this.current, held: on }),
      },
    });
  }

  /** Mute: the microphone's track sends silence; the call goes on. */
  mute(on: boolean) {
    const pc = this.peerConnection();
    if (!pc || !this.current) return;
    pc.getSenders().forEach((sender) => {
      if (sender.track && sender.track.kind === "audio") sender.track.enabled = !on;
    });
    this.show({ ...this.current, muted: on });
  }

  /** DTMF tones (0-9, *, #) in the media (RFC 4733 telephone-event); false when they cannot be sent. */
  dtmf(tones: string) {
    const handler = this.session?.sessionDescriptionHandler as unknown as { sendDtmf?: (t: string, o?: object) => boolean } | undefined;
    if (!handler?.sendDtmf || !/^[\d*#]+$/.test(tones)) return false;
    return handler.sendDtmf(tones, { duration: 100, interToneGap: 70 });
  }

  /** Blind transfer: the other party is asked (REFER) to call `target`; this side then hangs up. */
  async transfer(target: string) {
    const s = this.session;
    const uri = UserAgent.makeURI(`sip:${target}@${this.config.domain}`);
    if (!s || s.state !== SessionState.Established || !uri) return false;
    return new Promise<boolean>((resolve) => {
      void s
        .refer(uri, {
          requestDelegate: {
            onAccept: () => {
              resolve(true);
              void s.bye().catch(() => undefined);
            },
            onReject: () => resolve(false),
          },
        })
        .catch(() => resolve(false));
    });
  }

  private consultSession: Session | null = null;

  /** Attended transfer, step 1: the other party on hold, a consultation call to `target`. */
  async consult(target: string) {
    const uri = UserAgent.makeURI(`sip:${target}@${this.config.domain}`);
    if (!this.session || this.session.state !== SessionState.Established || !this.current || this.consultSession || !uri) return false;
    if (!this.current.held) await this.hold(true);
    const inviter = new Inviter(this.ua, uri, { sessionDescriptionHandlerOptions: { constraints: { audio: true, video: false } } });
    this.consultSession = inviter;
    const mark = (consult: { target: string; connected: boolean } | undefined) => this.current && this.show({ ...this.current, consult });
    inviter.stateChange.addListener((state) => {
      if (state === SessionState.Established) {
        mark({ target, connected: true });
        this.hear(inviter);
      }
      if (state === SessionState.Terminated && this.consultSession === inviter) {
        // the target hung up or refused: back to the held party (still on hold until Resume)
        this.consultSession = null;
        mark(undefined);
        if (this.session) this.hear(this.session);
      }
    });
    mark({ target, connected: false });
    await inviter.invite().catch(() => undefined);
    return true;
  }

  /** Attended transfer, step 2: REFER with Replaces; the held party calls the target, this phone leaves both calls. */
  async completeTransfer() {
    const main = this.session;
    const consult = this.consultSession;
    if (!main || !consult || consult.state !== SessionState.Established) return false;
    return new Promise<boolean>((resolve) => {
      void main
        .refer(consult, {
          requestDelegate: {
            onAccept: () => {
              resolve(true);
              // the target's phone ends the consultation call when the held party's call replaces it
              this.consultSession = null;
              void main.bye().catch(() => undefined);
            },
            onReject: () => resolve(false),
          },
        })
        .catch(() => resolve(false));
    });
  }

  /** Attended transfer called off: the consultation call ends, the held party is taken off hold. */
  async cancelConsult() {
    const consult = this.consultSession;
    if (!consult) return;
    this.consultSession = null;
    if (consult.state === SessionState.Established) await consult.bye().catch(() => undefined);
    else if (consult instanceof Inviter) await consult.cancel().catch(() => undefined);
    if (this.current) this.show({ ...this.current, consult: undefined });
    if (this.session) this.hear(this.session);
    await this.hold(false);
  }

  /** Asked to call someone else by the other party (its blind transfer): the new call starts, the transferor ends the old one. */
  private async referred(referral: Referral) {
    await referral.accept();
    const target = referral.referTo.uri.user ?? "";
    // the old call is ended by the transferor (its BYE once we accepted); this phone moves on
    this.session = null;
    const inviter = referral.makeInviter({ sessionDescriptionHandlerOptions: { constraints: { audio: true, video: false } } });
    this.watch(inviter, target);
    this.show({ kind: "calling", to: target });
    await inviter.invite();
  }

  private peerConnection() {
    return (this.session?.sessionDescriptionHandler as unknown as { peerConnection?: RTCPeerConnection } | undefined)?.peerConnection;
  }

  async hangUp() {
    const s = this.session;
    if (!s) return;
    if (s.state === SessionState.Established) await s.bye();
    else if (s instanceof Inviter) await s.cancel();
    else await (s as Invitation).reject();
  }

  /** The inbound audio's RTP packets and bytes so far (the e2e test proves media flows). */
  async inboundPackets() {
    return (await this.inbound()).packets;
  }
  async inbound() {
    const pc = this.peerConnection();
    const total = { packets: 0, bytes: 0 };
    if (!pc) return total;
    (await pc.getStats()).forEach((r) => {
      if (r.type === "inbound-rtp" && r.kind === "audio") {
        total.packets += r.packetsReceived ?? 0;
        total.bytes += r.bytesReceived ?? 0;
      }
    });
    return total;
  }

  async stop() {
    this.stopped = true;
    window.removeEventListener("online", this.onOnline);
    if (this.retry) clearTimeout(this.retry);
    if (this.acwTimer) clearTimeout(this.acwTimer);
    try {
      await this.hangUp();
      if (this.registerer.state === RegistererState.Registered) await this.registerer.unregister();
    } catch {
      // the server may be gone
    }
    await this.ua.stop().catch(() => undefined);
  }
}
