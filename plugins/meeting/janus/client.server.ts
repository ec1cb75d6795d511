// A small client of Janus's HTTP API (janus-gateway 1.x, the VideoRoom plugin): one session per
// server node, a handle per publisher and per received feed. Requests carry a transaction id;
// synchronous answers come back at once, asynchronous ones ("ack", then an event with the same
// transaction) through the session's long poll. Browsers never talk to Janus's API: the server
// does it for them over the meeting's socket events, after its own access checks.
import { randomBytes } from "node:crypto";

export interface Jsep {
  type: "offer" | "answer";
  sdp: string;
  trickle?: boolean;
}
export interface IceCandidate {
  candidate: string;
  sdpMid: string | null;
  sdpMLineIndex: number | null;
}
export interface JanusAnswer {
  data: Record<string, unknown>;
  jsep?: Jsep;
}

/** JANUS_URL, e.g. http://127.0.0.1:8088/janus (set by `npm run meeting:up` users, tests and benches). */
export const janusUrl = (env: NodeJS.ProcessEnv = process.env) => env.JANUS_URL?.replace(/\/+$/, "") || "";

type Waiter = { resolve: (a: JanusAnswer) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> };

export class JanusClient {
  private sessionId: number | null = null;
  private starting: Promise<number> | null = null;
  private waiters = new Map<string, Waiter>();
  private polling = false;
  private keepalive: ReturnType<typeof setInterval> | null = null;
  constructor(
    readonly url: string,
    private timeoutMs = 15_000,
  ) {}

  private async post(path: string, body: Record<string, unknown>) {
    const transaction = randomBytes(9).toString("base64url");
    const response = await fetch(`${this.url}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...body, transaction }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const answer = (await response.json()) as {
      janus: string;
      data?: { id: number };
      error?: { code: number; reason: string };
      plugindata?: { data: Record<string, unknown> };
      jsep?: Jsep;
    };
    if (answer.janus === "error") throw new Error(`janus: ${answer.error?.code} ${answer.error?.reason}`);
    return { answer, transaction };
  }

  /** Whether Janus answers its info request (a quick probe before a meeting picks its mode). */
  async reachable() {
    try {
      const response = await fetch(`${this.url}/info`, { signal: AbortSignal.timeout(1500) });
      const info = (await response.json()) as { janus?: string; plugins?: Record<string, unknown> };
      return info.janus === "server_info" && Boolean(info.plugins?.["janus.plugin.videoroom"]);
    } catch {
      return false;
    }
  }

  private async session() {
    if (this.sessionId) return this.sessionId;
    this.starting ??= (async () => {
      const { answer } = await this.post("", { janus: "create" });
      this.sessionId = answer.data!.id;
      this.poll();
      this.keepalive = setInterval(() => void this.post(`/${this.sessionId}`, { janus: "keepalive" }).catch(() => undefined), 25_000);
      this.keepalive.unref();
      return this.sessionId;
    })().finally(() => (this.starting = null));
    return this.starting;
  }

  /** The long poll: events of every handle of the session, each settling the request it answers. */
  private poll() {
    if (this.polling) return;
    this.polling = true;
    const loop = async () => {
      while (this.sessionId) {
        try {
          const response = await fetch(`${this.url}/${this.sessionId}?maxev=10&rid=${Date.now()}`, { signal: AbortSignal.timeout(40_000) });
          const got = (await response.json()) as unknown;
          for (const event of (Array.isArray(got) ? got : [got]) as {
            janus: string;
            transaction?: string;
            plugindata?: { data: Record<string, unknown> };
            jsep?: Jsep;
            error?: { reason: string };
          }[]) {
            const waiter = event.transaction ? this.waiters.get(event.transaction) : undefined;
            if (!waiter || event.janus === "ack") continue;
            this.waiters.delete(event.transaction!);
            clearTimeout(waiter.timer);
            const error = event.plugindata?.data?.error as string | undefined;
            if (event.janus === "error" || error) waiter.reject(new Error(`janus: ${error ?? event.error?.reason}`));
            else waiter.resolve({ data: event.plugindata?.data ?? {}, jsep: event.jsep });
          }
        } catch {
          // Janus went away: the session is gone with it; the next request makes a new one
          this.reset(new Error("janus: connection lost"));
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
      this.polling = false;
    };
    void loop();
  }

  private reset(error: Error) {
    this.sessionId = null;
    if (this.keepalive) clearInterval(this.keepalive);
    for (const w of this.waiters.values()) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    this.waiters.clear();
  }

  async attach(): Promise<number> {
    const session = await this.session();
    const { answer } = await this.post(`/${session}`, { janus: "attach", plugin: "janus.plugin.videoroom" });
    return answer.data!.id;
  }

  async detach(handle: number) {
    if (!this.sessionId) return;
    await this.post(`/${this.sessionId}/${handle}`, { janus: "detach" }).catch(() => undefined);
  }

  /**
   * A browser's ICE candidate for a handle, sent as the browser finds it (trickle); `null`: the
   * browser found them all. Janus takes candidates that come before the SDP they belong to.
   */
  async trickle(handle: number, candidate: IceCandidate | null) {
    const session = await this.session();
    await this.post(`/${session}/${handle}`, { janus: "trickle", candidate: candidate ?? { completed: true } });
  }

  /** A VideoRoom request: the synchronous answer's data, or the event that answers an asynchronous one (with its jsep). */
  async request(handle: number, body: Record<string, unknown>, jsep?: Jsep): Promise<JanusAnswer> {
    const session = await this.session();
    const transaction = randomBytes(9).toString("base64url");
    const pending = new Promise<JanusAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(transaction);
        reject(new Error(`janus: no answer to ${String(body.request)}`));
      }, this.timeoutMs);
      this.waiters.set(transaction, { resolve, reject, timer });
    });
    // the event may settle it before the POST's "ack" is read: a rejection then is not unhandled
    pending.catch(() => undefined);
    const response = await fetch(`${this.url}/${session}/${handle}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ janus: "message", body, transaction, ...(jsep ? { jsep } : {}) }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const answer = (await response.json()) as { janus: string; plugindata?: { data: Record<string, unknown> }; error?: { reason: string } };
    if (answer.janus === "ack") return pending;
    const w = this.waiters.get(transaction);
    if (w) {
      clearTimeout(w.timer);
      this.waiters.delete(transaction);
    }
    const error = answer.plugindata?.data?.error as string | undefined;
    if (answer.janus === "error" || error) throw new Error(`janus: ${error ?? answer.error?.reason}`);
    return { data: answer.plugindata?.data ?? {} };
  }

  async close() {
    const id = this.sessionId;
    this.reset(new Error("janus: closed"));
    if (id) await this.post(`/${id}`, { janus: "destroy" }).catch(() => undefined);
  }
}
