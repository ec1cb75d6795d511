// rtpengine's control protocol ("ng": bencoded dictionaries over UDP, each message led by a
// cookie) as the product speaks it for supervision: a supervisor listening in on a live call is
// a subscription to the call's media (rtpengine's "subscribe request" / "subscribe answer" /
// "unsubscribe", in rtpengine 10.5 and later). rtpengine forks both parties' audio to the
// supervisor's browser over DTLS-SRTP with ICE; the parties' own media is not touched. Kamailio
// names each call by its SIP Call-ID in rtpengine, as the product's calls table does.
import dgram from "node:dgram";
import { randomBytes } from "node:crypto";

type Value = string | number | Value[] | { [key: string]: Value };

export function bencode(value: Value): Buffer {
  if (typeof value === "number") return Buffer.from(`i${Math.trunc(value)}e`);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([Buffer.from(`${bytes.length}:`), bytes]);
  }
  if (Array.isArray(value)) return Buffer.concat([Buffer.from("l"), ...value.map(bencode), Buffer.from("e")]);
  const keys = Object.keys(value).sort();
  return Buffer.concat([Buffer.from("d"), ...keys.flatMap((k) => [bencode(k), bencode(value[k])]), Buffer.from("e")]);
}

export function bdecode(buffer: Buffer): Value {
  let at = 0;
  const next = (): Value => {
    const c = String.fromCharCode(buffer[at]);
    if (c === "i") {
      const end = buffer.indexOf(0x65, at);
      const n = Number(buffer.subarray(at + 1, end).toString());
      at = end + 1;
      return n;
    }
    if (c === "l") {
      at++;
      const list: Value[] = [];
      while (buffer[at] !== 0x65) list.push(next());
      at++;
      return list;
    }
    if (c === "d") {
      at++;
      const dict: Record<string, Value> = {};
      while (buffer[at] !== 0x65) {
        const key = next() as string;
        dict[key] = next();
      }
      at++;
      return dict;
    }
    const colon = buffer.indexOf(0x3a, at);
    if (colon < 0) throw new Error("bencode: bad string");
    const length = Number(buffer.subarray(at, colon).toString());
    const text = buffer.subarray(colon + 1, colon + 1 + length).toString("utf8");
    at = colon + 1 + length;
    return text;
  };
  return next();
}

export class RtpengineError extends Error {}

/** Where rtpengine's ng port is (host:port): RTPENGINE_NG, as `npm run sip:up` starts it. */
export function rtpengineAddress(env: Record<string, string | undefined> = process.env) {
  const raw = env.RTPENGINE_NG || `127.0.0.1:${env.RTPENGINE_NG_PORT || 22222}`;
  const [host, port] = raw.replace(/^udp:/, "").split(":");
  return { host, port: Number(port) };
}

/** One ng command and its answer; throws RtpengineError on a timeout or an answer of result "error". */
export async function ng(command: Record<string, Value>, address = rtpengineAddress(), timeoutMs = 2000): Promise<Record<string, Value>> {
  const cookie = randomBytes(8).toString("hex");
  const socket = dgram.createSocket("udp4");
  try {
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new RtpengineError("the media server did not answer")), timeoutMs);
      socket.on("message", (message) => {
        const space = message.indexOf(0x20);
        if (message.subarray(0, space).toString() !== cookie) return;
        clearTimeout(timer);
        resolve(message.subarray(space + 1));
      });
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(new RtpengineError(error.message));
      });
      socket.send(Buffer.concat([Buffer.from(`${cookie} `), bencode(command)]), address.port, address.host);
    });
    const decoded = bdecode(answer) as Record<string, Value>;
    if (decoded.result === "error") throw new RtpengineError(String(decoded["error-reason"] ?? "error"));
    return decoded;
  } finally {
    socket.close();
  }
}
