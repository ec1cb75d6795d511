// File storage behind one interface; the default keeps files on local disk under DATA_DIR/files.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { dataDir } from "@db/client";

/** A stream passed its size limit (putStream): nothing was kept. */
export class TooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`larger than ${maxBytes} bytes`);
  }
}

export interface FileStorage {
  put(data: Uint8Array): Promise<string>;
  /** Stores a stream without holding it in memory; throws TooLarge (keeping nothing) past maxBytes. */
  putStream(stream: Readable, options?: { maxBytes?: number }): Promise<{ key: string; size: number }>;
  /** A stream of the stored bytes (only start..end, inclusive, when given), or undefined when the key is unknown. */
  get(key: string, range?: { start: number; end: number }): Promise<ReadableStream<Uint8Array> | undefined>;
  /** The stored size in bytes, or undefined when the key is unknown (for range requests). */
  size(key: string): Promise<number | undefined>;
  remove(key: string): Promise<void>;
}

const KEY = /^[a-f0-9]{32}$/;

export class LocalDiskStorage implements FileStorage {
  constructor(private readonly root: string) {}

  private pathOf(key: string) {
    if (!KEY.test(key)) throw new Error("bad storage key");
    return path.join(this.root, key.slice(0, 2), key);
  }

  async put(data: Uint8Array) {
    const key = randomBytes(16).toString("hex");
    const file = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    await fs.promises.writeFile(file, data, { flag: "wx" });
    return key;
  }

  async putStream(stream: Readable, options: { maxBytes?: number } = {}) {
    const key = randomBytes(16).toString("hex");
    const file = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    let size = 0;
    const limit = options.maxBytes ?? Infinity;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        done(size > limit ? new TooLarge(limit) : null, chunk);
      },
    });
    try {
      await pipeline(stream, count, fs.createWriteStream(file, { flags: "wx" }));
    } catch (error) {
      await fs.promises.rm(file, { force: true });
      throw error;
    }
    return { key, size };
  }

  async get(key: string, range?: { start: number; end: number }) {
    if (!KEY.test(key)) return undefined;
    const file = this.pathOf(key);
    if (!fs.existsSync(file)) return undefined;
    return Readable.toWeb(fs.createReadStream(file, range)) as ReadableStream<Uint8Array>;
  }

  async size(key: string) {
    if (!KEY.test(key)) return undefined;
    return (await fs.promises.stat(this.pathOf(key)).catch(() => undefined))?.size;
  }

  async remove(key: string) {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }
}

/** Where the default storage keeps files (backups copy it). */
export function filesDir(dir = dataDir()) {
  return path.join(dir, "files");
}

let storage: FileStorage | undefined;
export function fileStorage(): FileStorage {
  return (storage ??= new LocalDiskStorage(filesDir()));
}

// the limits live in ./file-types.ts, which the browser reads too (an encrypted attachment is checked there before it is sealed)
export { ALLOWED_TYPES, MAX_FILE_BYTES, MAX_FILES } from "./file-types";
