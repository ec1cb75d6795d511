// A tiny SIP user agent over UDP for the call-server tests and bench: REGISTER with digest auth
// (RFC 3261 / 2617, qop=auth), a desk phone that rings (fakePhone), and an agent's call (call: an
// INVITE with digest auth, ACK, BYE). Enough to prove Kamailio asks the product for the account,
// accepts the right password and refuses a wrong one, and routes the agent's calls.
import { createHash, randomBytes } from "node:crypto";
import dgram from "node:dgram";

const md5 = (s: string) => createHash("md5").update(s).digest("hex");
const token = () => randomBytes(6).toString("hex");

export interface SipResponse {
  status: number;
  reason: string;
  headers: Record<string, string>;
  raw: string;
}

function parse(raw: string): SipResponse {
  const [head] = raw.split("\r\n\r\n");
  const lines = head.split("\r\n");
  const m = lines[0].match(/^SIP\/2\.0 (\d{3}) (.*)$/);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: m ? Number(m[1]) : 0, reason: m ? m[2] : "", headers, raw };
}

export interface RegisterOptions {
  host: string;
  port: number;
  domain: string;
  user: string;
  password: string;
  expires?: number;
  timeoutMs?: number;
  /** the Contact's port (another UA that answers the calls: the bench's sipp UAS); this socket's by default */
  contactPort?: number;
}

/** REGISTERs user@domain; answers the final response (after one digest round), or status 0 on timeout. */
export async function register(o: RegisterOptions): Promise<SipResponse> {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const localPort = socket.address().port;
  const callId = `${token()}@127.0.0.1`;
  const fromTag = token();
  let cseq = 1;
  const request = (authorization?: string) => {
    const branch = `z9hG4bK${token()}`;
    const lines = [
      `REGISTER sip:${o.domain} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:${localPort};branch=${branch};rport`,
      `Max-Forwards: 70`,
      `From: <sip:${o.user}@${o.domain}>;tag=${fromTag}`,
      `To: <sip:${o.user}@${o.domain}>`,
      `Call-ID: ${callId}`,
      `CSeq: ${cseq++} REGISTER`,
      `Contact: <sip:${o.user}@127.0.0.1:${o.contactPort ?? localPort}>`,
      `Expires: ${o.expires ?? 60}`,
      ...(authorization ? [`Authorization: ${authorization}`] : []),
      `User-Agent: omnidesk-test`,
      `Content-Length: 0`,
      "",
      "",
    ];
    return lines.join("\r\n");
  };
  const exchange = (message: string) =>
    new Promise<SipResponse>((resolve) => {
      const timer = setTimeout(() => {
        socket.off("message", onMessage);
        resolve({ status: 0, reason: "timeout", headers: {}, raw: "" });
      }, o.timeoutMs ?? 3000);
      const onMessage = (buf: Buffer) => {
        const r = parse(buf.toString());
        if (r.status < 200) return; // provisional
        clearTimeout(timer);
        socket.off("message", onMessage);
        resolve(r);
      };
      socket.on("message", onMessage);
      socket.send(message, o.port, o.host);
    });
  try {
    const first = await exchange(request());
    if (first.status !== 401) return first;
    const challenge = first.headers["www-authenticate"] ?? "";
    const param = (name: string) => challenge.match(new RegExp(`${name}="?([^",]+)"?`))?.[1] ?? "";
    const realm = param("realm");
    const nonce = param("nonce");
    const qop = param("qop");
    const uri = `sip:${o.domain}`;
    const ha1 = md5(`${o.user}:${realm}:${o.password}`);
    const ha2 = md5(`REGISTER:${uri}`);
    const cnonce = token();
    const nc = "00000001";
    const response = qop ? md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
    const auth =
      `Digest username="${o.user}", realm="${realm}", nonce="${nonce}", uri="${uri}", response="${response}", algorithm=MD5` +
      (qop ? `, qop=auth, nc=${nc}, cnonce="${cnonce}"` : "");
    return await exchange(request(auth));
  } finally {
    socket.close();
  }
}

export interface FakePhone {
  port: number;
  /** the INVITEs that reached this phone (retransmissions once), with when, and when each was cancelled */
  invites: { callId: string; at: number; cancelledAt: number | null }[];
  /** what the phone does with the next INVITE: ring until cancelled, or decline (603) after a while */
  behaviour: { kind: "ring" } | { kind: "decline"; afterMs: number };
  close(): void;
}

/**
 * A desk phone that never answers, for the ring strategy tests: a UDP socket an extension is
 * REGISTERed to (register's contactPort). An INVITE gets 180 Ringing; then the phone rings until
 * the CANCEL (200, then 487 for the INVITE) or declines with 603 after `afterMs`.
 */
export async function fakePhone(): Promise<FakePhone> {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const toTag = token();
  const phone: FakePhone = {
    port: socket.address().port,
    invites: [],
    behaviour: { kind: "ring" },
    close: () => socket.close(),
  };
  // what a response copies of its request: every Via in order, From, To (with this phone's tag), Call-ID, CSeq
  const reply = (request: string, status: string, to: { address: string; port: number }) => {
    const lines = request.split("\r\n\r\n")[0].split("\r\n").slice(1);
    const copied = lines.filter((l) => /^(via|v|from|f|call-id|i|cseq|record-route)\s*:/i.test(l));
    const toLine = lines.find((l) => /^(to|t)\s*:/i.test(l)) ?? "";
    const out = [`SIP/2.0 ${status}`, ...copied, /;tag=/.test(toLine) ? toLine : `${toLine};tag=${toTag}`, "Content-Length: 0", "", ""].join("\r\n");
    socket.send(out, to.port, to.address);
  };
  const pending = new Map<string, { request: string; from: { address: string; port: number }; timer?: NodeJS.Timeout }>();
  socket.on("message", (buf, rinfo) => {
    const raw = buf.toString();
    const method = raw.split(" ", 1)[0];
    const callId = /^(?:call-id|i)\s*:\s*(.+)$/im.exec(raw)?.[1].trim() ?? "";
    const from = { address: rinfo.address, port: rinfo.port };
    if (method === "INVITE") {
      if (!pending.has(callId)) {
        phone.invites.push({ callId, at: Date.now(), cancelledAt: null });
        const entry: { request: string; from: typeof from; timer?: NodeJS.Timeout } = { request: raw, from };
        const b = phone.behaviour;
        if (b.kind === "decline")
          entry.timer = setTimeout(() => {
            pending.delete(callId);
            reply(raw, "603 Decline", from);
          }, b.afterMs);
        pending.set(callId, entry);
      }
      reply(raw, "180 Ringing", from);
    } else if (method === "CANCEL") {
      reply(raw, "200 OK", from);
      const entry = pending.get(callId);
      const invite = phone.invites.find((i) => i.callId === callId && i.cancelledAt == null);
      if (invite) invite.cancelledAt = Date.now();
      if (entry) {
        clearTimeout(entry.timer);
        pending.delete(callId);
        reply(entry.request, "487 Request Terminated", entry.from);
      }
    } else if (method === "BYE" || method === "OPTIONS") reply(raw, "200 OK", from);
    // ACKs (of the 487 or 603) need no answer
  });
  return phone;
}

export interface CallOptions extends Omit<RegisterOptions, "contactPort" | "expires"> {
  /** the Request-URI's user: an extension or an outside number */
  to: string;
  /** how long the call stays up once answered, before this side hangs up (BYE) */
  talkMs?: number;
}

export interface CallResult {
  /** the INVITE's final response (after one digest round) */
  final: SipResponse;
  /** the BYE's response when the call was answered */
  bye: SipResponse | null;
  callId: string;
}

/**
 * An agent's call from a plain SIP phone (UDP, RTP/AVP, G.711): INVITE with digest auth (407),
 * ACK of the final response, and once answered a BYE after `talkMs` along the route set.
 */
export async function call(o: CallOptions): Promise<CallResult> {
  const socket = dgram.createSocket("udp4");
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const localPort = socket.address().port;
  const callId = `${token()}@127.0.0.1`;
  const fromTag = token();
  const ruri = `sip:${o.to}@${o.domain}`;
  const from = `From: <sip:${o.user}@${o.domain}>;tag=${fromTag}`;
  const sdp = [
    "v=0",
    `o=${o.user} 1 1 IN IP4 127.0.0.1`,
    "s=-",
    "c=IN IP4 127.0.0.1",
    "t=0 0",
    `m=audio ${localPort + 2} RTP/AVP 0`,
    "a=rtpmap:0 PCMU/8000",
    "a=sendrecv",
    "",
  ].join("\r\n");
  const message = (start: string, headers: string[], body = "") =>
    [
      start,
      `Via: SIP/2.0/UDP 127.0.0.1:${localPort};branch=z9hG4bK${token()};rport`,
      "Max-Forwards: 70",
      ...headers,
      `Content-Length: ${Buffer.byteLength(body)}`,
      "",
      body,
    ].join("\r\n");
  const invite = (cseq: number, authorization?: string) =>
    message(
      `INVITE ${ruri} SIP/2.0`,
      [
        from,
        `To: <${ruri}>`,
        `Call-ID: ${callId}`,
        `CSeq: ${cseq} INVITE`,
        `Contact: <sip:${o.user}@127.0.0.1:${localPort}>`,
        ...(authorization ? [`Proxy-Authorization: ${authorization}`] : []),
        "Content-Type: application/sdp",
        "User-Agent: omnidesk-test",
      ],
      sdp,
    );
  // the ACK of a non-2xx final response: the INVITE's Via branch, its To (with the tag)
  const ackOf = (sent: string, r: SipResponse, cseq: number) => {
    const via = /^Via: .*$/m.exec(sent)![0];
    return [
      `ACK ${ruri} SIP/2.0`,
      via,
      "Max-Forwards: 70",
      from,
      `To: ${r.headers.to}`,
      `Call-ID: ${callId}`,
      `CSeq: ${cseq} ACK`,
      "Content-Length: 0",
      "",
      "",
    ].join("\r\n");
  };
  const send = (text: string) => socket.send(text, o.port, o.host);
  const finalOf = (text: string, method: string) =>
    new Promise<SipResponse>((resolve) => {
      const timer = setTimeout(() => {
        socket.off("message", onMessage);
        resolve({ status: 0, reason: "timeout", headers: {}, raw: "" });
      }, o.timeoutMs ?? 10_000);
      const onMessage = (buf: Buffer) => {
        const r = parse(buf.toString());
        if (!r.status || r.status < 200 || !(r.headers.cseq ?? "").endsWith(method)) return;
        clearTimeout(timer);
        socket.off("message", onMessage);
        resolve(r);
      };
      socket.on("message", onMessage);
      send(text);
    });
  try {
    let sent = invite(1);
    let final = await finalOf(sent, "INVITE");
    if (final.status === 407 || final.status === 401) {
      send(ackOf(sent, final, 1));
      const challenge = final.headers["proxy-authenticate"] ?? final.headers["www-authenticate"] ?? "";
      const param = (name: string) => challenge.match(new RegExp(`${name}="?([^",]+)"?`))?.[1] ?? "";
      const realm = param("realm");
      const nonce = param("nonce");
      const qop = param("qop");
      const ha1 = md5(`${o.user}:${realm}:${o.password}`);
      const ha2 = md5(`INVITE:${ruri}`);
      const cnonce = token();
      const nc = "00000001";
      const response = qop ? md5(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
      const auth =
        `Digest username="${o.user}", realm="${realm}", nonce="${nonce}", uri="${ruri}", response="${response}", algorithm=MD5` +
        (qop ? `, qop=auth, nc=${nc}, cnonce="${cnonce}"` : "");
      sent = invite(2, auth);
      final = await finalOf(sent, "INVITE");
    }
    const cseq = Number((final.headers.cseq ?? "1").split(" ")[0]);
    if (final.status !== 200) {
      if (final.status) send(ackOf(sent, final, cseq));
      return { final, bye: null, callId };
    }
    // the dialog: the callee's Contact, the route set (Record-Route in reverse: all of them point at Kamailio)
    const lines = final.raw.split("\r\n\r\n")[0].split("\r\n");
    const routes = lines
      .filter((l) => /^record-route\s*:/i.test(l))
      .flatMap((l) => l.slice(l.indexOf(":") + 1).split(","))
      .map((r) => r.trim())
      .reverse();
    const target = /<([^>]+)>/.exec(final.headers.contact ?? "")?.[1] ?? ruri;
    const inDialog = (method: string, n: number) =>
      message(`${method} ${target} SIP/2.0`, [
        from,
        `To: ${final.headers.to}`,
        `Call-ID: ${callId}`,
        `CSeq: ${n} ${method}`,
        ...routes.map((r) => `Route: ${r}`),
      ]);
    send(inDialog("ACK", cseq));
    await new Promise((r) => setTimeout(r, o.talkMs ?? 1000));
    const bye = await finalOf(inDialog("BYE", cseq + 1), "BYE");
    return { final, bye, callId };
  } finally {
    socket.close();
  }
}
