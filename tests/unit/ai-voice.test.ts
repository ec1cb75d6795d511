// Voice analysis from the audio itself (plugins/ai/voice.ts and POST /api/upload/voice), on WAV
// files made here: loud fast speech-like bursts read as loud and fast, soft slow ones as soft and
// slow, per 5-second segment and as the spec's levels (0/25/50/75/100); 8-bit, 16-bit, 24-bit,
// float and stereo files decode alike. The upload refuses, before reading the audio, a declared
// size over the limit and a declared type that is not WAV, and by its first bytes a renamed file
// that is not audio and MP3 audio (said by name); emotion comes from a transcript when given.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername } from "~/accounts/users.server";
import { createSession } from "~/accounts/sessions.server";
import { analyseVoice, decodeWav, energyLevel, paceLevel, sniffAudio, VOICE_MAX_BYTES } from "@plugins/ai/voice";
import { action as uploadVoice } from "@plugins/ai/routes/api.upload.voice";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-ai-voice-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** Speech-like audio: `rate` syllables a second, each a 150 Hz voiced burst of `amplitude`, for `seconds`. */
function speech(seconds: number, rate: number, amplitude: number, sampleRate = 16_000): Float32Array {
  const out = new Float32Array(seconds * sampleRate);
  const period = sampleRate / rate;
  const burst = Math.min(period * 0.55, sampleRate * 0.12);
  for (let i = 0; i < out.length; i++) {
    const inBurst = i % period;
    if (inBurst > burst) continue;
    const shape = Math.sin((Math.PI * inBurst) / burst);
    out[i] = amplitude * shape * (Math.sin((2 * Math.PI * 150 * i) / sampleRate) * 0.7 + Math.sin((2 * Math.PI * 450 * i) / sampleRate) * 0.3);
  }
  return out;
}

function wav(samples: Float32Array, { sampleRate = 16_000, bits = 16, channels = 1, float = false } = {}): Uint8Array<ArrayBuffer> {
  const width = bits / 8;
  const data = samples.length * width * channels;
  const buf = Buffer.alloc(44 + data);
  buf.write("RIFF", 0);
  buf.writeUInt32LE(36 + data, 4);
  buf.write("WAVE", 8);
  buf.write("fmt ", 12);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(float ? 3 : 1, 20);
  buf.writeUInt16LE(channels, 22);
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * width * channels, 28);
  buf.writeUInt16LE(width * channels, 32);
  buf.writeUInt16LE(bits, 34);
  buf.write("data", 36);
  buf.writeUInt32LE(data, 40);
  let at = 44;
  for (const s of samples)
    for (let c = 0; c < channels; c++, at += width) {
      if (float) buf.writeFloatLE(s, at);
      else if (bits === 8) buf.writeUInt8(Math.round(s * 127 + 128), at);
      else if (bits === 16) buf.writeInt16LE(Math.round(s * 32767), at);
      else if (bits === 24) buf.writeIntLE(Math.round(s * 8388607), at, 3);
      else buf.writeInt32LE(Math.round(s * 2147483647), at);
    }
  return Uint8Array.from(buf);
}

describe("voice features", () => {
  it("reads loud fast speech as loud and fast, soft slow speech as soft and slow, per segment", () => {
    const loudFast = analyseVoice(speech(10, 6.5, 0.8), 16_000);
    expect(loudFast).toHaveLength(2);
    for (const s of loudFast) expect(s).toMatchObject({ energy: 100, pace: 100 });
    const softSlow = analyseVoice(speech(5, 1.5, 0.01), 16_000);
    expect(softSlow).toHaveLength(1);
    expect(softSlow[0]).toMatchObject({ energy: 0, pace: 0 });
    const normal = analyseVoice(speech(5, 3.8, 0.15), 16_000)[0];
    expect(normal).toMatchObject({ energy: 50, pace: 50 });
    // a loud first half and a soft second half differ per segment
    const both = new Float32Array([...speech(5, 5, 0.8), ...speech(5, 2.5, 0.04)]);
    expect(analyseVoice(both, 16_000).map((s) => [s.energy, s.pace])).toEqual([
      [100, 75],
      [25, 25],
    ]);
  });

  it("maps levels at the spec's steps", () => {
    expect([-50, -35, -25, -15, -6].map(energyLevel)).toEqual([0, 25, 50, 75, 100]);
    expect([1, 2.5, 4, 5, 7].map(paceLevel)).toEqual([0, 25, 50, 75, 100]);
  });

  it("decodes 8, 16, 24-bit, float and stereo WAV alike", () => {
    const source = speech(2, 4, 0.5, 8_000);
    const levels = (bytes: Uint8Array) => {
      const { samples, sampleRate } = decodeWav(bytes);
      return analyseVoice(samples, sampleRate).map((s) => [s.energy, s.pace]);
    };
    const expected = levels(wav(source, { sampleRate: 8_000 }));
    for (const options of [{ bits: 8 }, { bits: 24 }, { bits: 32 }, { bits: 32, float: true }, { channels: 2 }])
      expect(levels(wav(source, { sampleRate: 8_000, ...options })), JSON.stringify(options)).toEqual(expected);
    expect(sniffAudio(new TextEncoder().encode("ID3\u0004 tag"))).toBe("mp3");
    expect(sniffAudio(new TextEncoder().encode("%PDF-1.7 not audio"))).toBeNull();
  });
});

describe("POST /api/upload/voice", () => {
  let t: TestDb;
  let token = "";
  beforeAll(async () => {
    t = await createTestDb("sqlite");
    await seedDemo(t.handle, { tickets: 0 });
    token = (await createSession((await findUserByUsername("agent"))!.id)).token;
  }, 60_000);
  afterAll(async () => t?.cleanup());

  const upload = async (file: Blob, name: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}) => {
    const form = new FormData();
    form.set("attachment", file, name);
    for (const [k, v] of Object.entries(fields)) form.set(k, v);
    const request = new Request(`http://localhost/api/upload/voice?_token=${token}`, { method: "POST", body: form });
    const sent = Object.keys(headers).length
      ? new Request(request.url, {
          method: "POST",
          headers: { ...Object.fromEntries(request.headers), ...headers },
          body: request.body,
          duplex: "half",
        } as RequestInit)
      : request;
    try {
      return (await uploadVoice({ request: sent, context: {}, params: {} } as never)) as Response;
    } catch (thrown) {
      if (thrown instanceof Response) return thrown;
      throw thrown;
    }
  };

  it("answers energy and pace per segment, and emotion from a transcript", async () => {
    const audio = wav(new Float32Array([...speech(5, 6.5, 0.8), ...speech(5, 1.5, 0.01)]));
    const answer = await upload(new Blob([audio], { type: "audio/wav" }), "call.wav", { transcript: "This is ridiculous, I am furious, fix it now!" });
    expect(answer.status).toBe(200);
    const body = await answer.json();
    expect(body).toMatchObject({ result: "success", amplitude: [100, 0], tempo: [100, 0], emotion: ["anger", "anger"], duration: 10 });
    expect(body.percentage[0].anger).toBeGreaterThan(50);
  });

  it("refuses by declared size and type before reading, and by the first bytes", async () => {
    const audio = wav(speech(2, 4, 0.5));
    const big = await upload(new Blob([audio], { type: "audio/wav" }), "big.wav", {}, { "Content-Length": String(VOICE_MAX_BYTES * 2) });
    expect(big.status).toBe(413);
    const typed = await upload(new Blob([audio], { type: "image/png" }), "x.png");
    expect(typed.status).toBe(415);
    expect((await typed.json()).description).toBe("Only WAV audio can be analysed on this machine.");
    const renamed = await upload(new Blob([new TextEncoder().encode("%PDF-1.7 invoice")], { type: "audio/wav" }), "invoice.wav");
    expect((await renamed.json()).description).toBe("This file is not audio.");
    const mp3 = await upload(new Blob([new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6])], { type: "audio/wav" }), "song.wav");
    expect(await mp3.json()).toMatchObject({ description: "This is MP3 audio: only WAV can be analysed on this machine.", format: "MP3" });
    const short = await upload(new Blob([wav(speech(1, 4, 0.5).slice(0, 8000))], { type: "audio/wav" }), "short.wav");
    expect((await short.json()).description).toBe("The audio is too short: at least one second.");
  });
});
