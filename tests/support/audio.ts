// Audio made for tests: speech-like bursts (a voiced 150 Hz tone shaped into syllables) and a
// WAV file of any PCM width, float or stereo, so voice analysis is tested on real files.
/** Speech-like audio: `rate` syllables a second, each a 150 Hz voiced burst of `amplitude`, for `seconds`. */
export function speech(seconds: number, rate: number, amplitude: number, sampleRate = 16_000): Float32Array {
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

export function wav(samples: Float32Array, { sampleRate = 16_000, bits = 16, channels = 1, float = false } = {}): Uint8Array<ArrayBuffer> {
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
