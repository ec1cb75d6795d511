// Voice analysis from the audio itself (plugins/ai/voice.ts and POST /api/upload/voice), on WAV
// files made here: loud fast speech-like bursts read as loud and fast, soft slow ones as soft and
// slow, per 5-second segment and as the spec's levels (0/25/50/75/100); 8-bit, 16-bit, 24-bit,
// float and stereo files decode alike. The upload refuses, before reading the audio, a declared
// size over the limit and a declared type that is not audio, and by its first bytes a renamed file
// that is not audio; MP3, OGG, WebM and M4A made by ffmpeg decode through ffmpeg to the WAV's
// levels, and without ffmpeg they are refused by name; emotion comes from a transcript when given.
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
import { speech, wav } from "../support/audio";
import { execFileSync } from "node:child_process";
import { forgetFfmpeg } from "@plugins/ai/decode.server";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-ai-voice-"));
process.env.DATA_DIR = dataDir;
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

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
    expect((await typed.json()).description).toBe("This is not an audio file type (WAV, MP3, OGG, WebM, M4A or FLAC).");
    const renamed = await upload(new Blob([new TextEncoder().encode("%PDF-1.7 invoice")], { type: "audio/wav" }), "invoice.wav");
    expect((await renamed.json()).description).toBe("This file is not audio.");
    // an MP3 header with nothing after it: ffmpeg cannot decode it
    const mp3 = await upload(new Blob([new Uint8Array([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6])], { type: "audio/wav" }), "song.wav");
    expect(await mp3.json()).toMatchObject({ description: "This MP3 file could not be decoded: it may be damaged.", format: "MP3" });
    const short = await upload(new Blob([wav(speech(1, 4, 0.5).slice(0, 8000))], { type: "audio/wav" }), "short.wav");
    expect((await short.json()).description).toBe("The audio is too short: at least one second.");
  });

  // files made by Debian's ffmpeg (.ci/run installs it) from the same WAV
  const encoded = (audio: Uint8Array, ext: string, codec: string[]) => {
    const dir = fs.mkdtempSync(path.join(dataDir, "enc-"));
    fs.writeFileSync(path.join(dir, "in.wav"), audio);
    execFileSync("ffmpeg", ["-nostdin", "-loglevel", "error", "-i", path.join(dir, "in.wav"), ...codec, path.join(dir, `out.${ext}`)]);
    return new Uint8Array(fs.readFileSync(path.join(dir, `out.${ext}`)));
  };

  it("decodes MP3, OGG, WebM and M4A through ffmpeg to the same energy and pace as the WAV", async () => {
    const audio = wav(new Float32Array([...speech(5, 6.5, 0.8), ...speech(5, 1.5, 0.01)]));
    for (const [ext, type, codec] of [
      ["mp3", "audio/mpeg", ["-c:a", "libmp3lame", "-b:a", "64k"]],
      ["ogg", "audio/ogg", ["-c:a", "libvorbis"]],
      ["webm", "video/webm", ["-c:a", "libopus"]],
      ["m4a", "audio/mp4", ["-c:a", "aac"]],
    ] as const) {
      const answer = await upload(new Blob([encoded(audio, ext, [...codec])], { type }), `call.${ext}`);
      expect(answer.status, ext).toBe(200);
      expect(await answer.json(), ext).toMatchObject({ result: "success", amplitude: [100, 0], tempo: [100, 0] });
    }
  });

  it("says the format needs ffmpeg where it is not installed, and still reads WAV", async () => {
    const audio = wav(speech(2, 4, 0.5));
    process.env.FFMPEG_BIN = "/nonexistent/ffmpeg";
    forgetFfmpeg();
    try {
      const ogg = await upload(new Blob([encoded(audio, "ogg", ["-c:a", "libvorbis"])], { type: "audio/ogg" }), "call.ogg");
      expect(ogg.status).toBe(415);
      expect(await ogg.json()).toMatchObject({
        description: "This is OGG audio: this format needs ffmpeg on the server (an admin can install it: apt install ffmpeg). WAV can be analysed without it.",
      });
      expect((await upload(new Blob([audio], { type: "audio/wav" }), "call.wav")).status).toBe(200);
    } finally {
      delete process.env.FFMPEG_BIN;
      forgetFfmpeg();
    }
  });
});
