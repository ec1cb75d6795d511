// Reads a reply form that may carry attachments, without losing the typed text when a file is
// refused: text fields are kept, each refused file becomes an error.
import { unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import { ALLOWED_TYPES, MAX_FILE_BYTES, MAX_FILES, fileStorage, type FileStorage } from "~/storage.server";
import type { StoredFile } from "~/conversation/model.server";

const MAX_FIELD_BYTES = 100_000;
/** The most a whole form may weigh: every file at its limit, and room for the text. */
export const MAX_BODY_BYTES = MAX_FILES * MAX_FILE_BYTES + 1024 * 1024;

/** A body over the limit (answered 413, before or while reading it). */
export class BodyTooLarge extends Error {
  constructor(readonly limit = MAX_BODY_BYTES) {
    super(`The request is too large: at most ${limit / 1024 / 1024} MB in all.`);
  }
}
/** The caller's check before the first file said no (a wrong token: answered 403). */
export class FormRefused extends Error {}

export interface ParsedForm {
  form: FormData;
  files: File[];
  /** Why files were refused (the server response shown in 'Opps, file failed to upload. ...'). */
  fileErrors: string[];
}

export interface ReadOptions {
  /** Total size limit (tests lower it). */
  limit?: number;
  /**
   * Asked once, before the first file is read, with the text fields sent so far: a form whose
   * token comes in the body is checked before its files are (forms put the token first).
   */
  beforeFiles?: (fields: Map<string, string>) => Promise<boolean>;
}

/**
 * The request with its body cut off past `limit`: a declared length over it is refused before a
 * byte is read, and a body that grows past it (chunked, or lying about its length) while read.
 */
export function limitBody(request: Request, limit: number): { request: Request; over: () => boolean } {
  if (Number(request.headers.get("Content-Length") ?? 0) > limit) throw new BodyTooLarge(limit);
  if (!request.body) return { request, over: () => false };
  let size = 0;
  const body = request.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > limit) controller.error(new BodyTooLarge(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
  const limited = new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal, duplex: "half" } as RequestInit);
  return { request: limited, over: () => size > limit };
}

/** A JSON body ({} when it is not JSON), within the total size limit. */
export async function readJsonBody(original: Request, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const { request, over } = limitBody(original, limit);
  const body = await request.json().catch(() => null);
  if (over()) throw new BodyTooLarge(limit);
  return body && typeof body === "object" ? (body as Record<string, unknown>) : {};
}

export async function readReplyForm(original: Request, options: ReadOptions = {}): Promise<ParsedForm> {
  const limit = options.limit ?? MAX_BODY_BYTES;
  const { request, over } = limitBody(original, limit);
  // the parsers wrap a stream's error in their own: a cut-off body is reported as too large
  const tooLarge = (error: unknown) => {
    throw over() ? new BodyTooLarge(limit) : error;
  };
  if (!(request.headers.get("Content-Type") ?? "").includes("multipart/form-data")) {
    return { form: await request.formData().catch(tooLarge), files: [], fileErrors: [] };
  }
  const files: File[] = [];
  const fileErrors: string[] = [];
  const fields = new Map<string, string>();
  let allowed = !options.beforeFiles;
  const handler: UploadHandler = async ({ name, filename, contentType, data }) => {
    if (filename !== undefined && !allowed) {
      if (!(await options.beforeFiles!(fields))) throw new FormRefused();
      allowed = true;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const limit = filename === undefined ? MAX_FIELD_BYTES : MAX_FILE_BYTES;
    for await (const chunk of data) {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    }
    const bytes = Buffer.concat(chunks);
    if (filename === undefined) {
      if (size > limit) return undefined;
      const text = bytes.toString("utf8");
      if (!fields.has(name)) fields.set(name, text);
      return text;
    }
    if (!filename || size === 0) return undefined; // an empty file input
    if (size > limit) fileErrors.push(`${filename} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB.`);
    else if (!ALLOWED_TYPES.includes(contentType)) fileErrors.push(`${filename}: files of type ${contentType || "unknown"} are not allowed.`);
    else if (files.length >= MAX_FILES) fileErrors.push(`At most ${MAX_FILES} files can be sent at once.`);
    else files.push(new File([bytes], filename.slice(0, 200), { type: contentType }));
    return undefined;
  };
  const form = await unstable_parseMultipartFormData(request, handler).catch((error: unknown) => {
    if (error instanceof FormRefused) throw error;
    return tooLarge(error);
  });
  return { form, files, fileErrors };
}

/** Stores the files; if one fails, the ones already stored are removed again. */
export async function storeFiles(files: File[], storage: FileStorage = fileStorage()): Promise<StoredFile[]> {
  const stored: StoredFile[] = [];
  try {
    for (const file of files) {
      const key = await storage.put(new Uint8Array(await file.arrayBuffer()));
      stored.push({ key, name: file.name, type: file.type, size: file.size });
    }
    return stored;
  } catch (error) {
    await Promise.all(stored.map((f) => storage.remove(f.key)));
    throw error;
  }
}
