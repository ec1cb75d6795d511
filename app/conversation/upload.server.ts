// Reads a reply form that may carry attachments, without losing the typed text when a file is
// refused: text fields are kept, each refused file becomes an error.
import { unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import { ALLOWED_TYPES, MAX_FILE_BYTES, MAX_FILES, fileStorage, type FileStorage } from "~/storage.server";
import type { StoredFile } from "~/conversation/model.server";

const MAX_FIELD_BYTES = 100_000;

export interface ParsedForm {
  form: FormData;
  files: File[];
  /** Why files were refused (the server response shown in 'Opps, file failed to upload. ...'). */
  fileErrors: string[];
}

export async function readReplyForm(request: Request): Promise<ParsedForm> {
  if (!(request.headers.get("Content-Type") ?? "").includes("multipart/form-data")) {
    return { form: await request.formData(), files: [], fileErrors: [] };
  }
  const files: File[] = [];
  const fileErrors: string[] = [];
  const handler: UploadHandler = async ({ filename, contentType, data }) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const limit = filename === undefined ? MAX_FIELD_BYTES : MAX_FILE_BYTES;
    for await (const chunk of data) {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    }
    const bytes = Buffer.concat(chunks);
    if (filename === undefined) return size <= limit ? bytes.toString("utf8") : undefined;
    if (!filename || size === 0) return undefined; // an empty file input
    if (size > limit) fileErrors.push(`${filename} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB.`);
    else if (!ALLOWED_TYPES.includes(contentType)) fileErrors.push(`${filename}: files of type ${contentType || "unknown"} are not allowed.`);
    else if (files.length >= MAX_FILES) fileErrors.push(`At most ${MAX_FILES} files can be sent at once.`);
    else files.push(new File([bytes], filename.slice(0, 200), { type: contentType }));
    return undefined;
  };
  const form = await unstable_parseMultipartFormData(request, handler);
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
