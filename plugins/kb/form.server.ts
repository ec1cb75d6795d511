// Reads the article form (multipart, with an optional image) without losing the typed text when the
// image is refused: fields are read first (the form puts them before the file), the image is counted
// past its limit without being kept, so a 10 MB image is answered with its reason and the text.
import { unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import type { ImageInput } from "./kb.server";
import { BODY_MAX, IMAGE_MAX_BYTES } from "./limits";

const FIELD_MAX = BODY_MAX * 4 + 1024;
/** The whole form: a text at its limit and an image well past its own (refused with a message, not a cut connection). */
export const FORM_BODY_MAX = FIELD_MAX + 16 * 1024 * 1024;

class Stop extends Error {}

export interface ArticleForm {
  fields: Record<string, string>;
  image?: ImageInput;
  /** The body was past FORM_BODY_MAX: fields read before it are kept. */
  tooLarge: boolean;
}

export async function readArticleForm(request: Request): Promise<ArticleForm> {
  const out: ArticleForm = { fields: {}, tooLarge: false };
  if (!(request.headers.get("Content-Type") ?? "").includes("multipart/form-data")) {
    const form = await request.formData();
    for (const [name, value] of form) if (typeof value === "string" && !(name in out.fields)) out.fields[name] = value.slice(0, FIELD_MAX);
    return out;
  }
  if (Number(request.headers.get("Content-Length") ?? 0) > FORM_BODY_MAX) return { ...out, tooLarge: true };
  let total = 0;
  const handler: UploadHandler = async ({ name, filename, contentType, data }) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const keep = filename === undefined ? FIELD_MAX : IMAGE_MAX_BYTES;
    for await (const chunk of data) {
      size += chunk.length;
      total += chunk.length;
      if (total > FORM_BODY_MAX) throw new Stop();
      if (size <= keep) chunks.push(chunk);
    }
    if (filename === undefined) {
      if (size <= FIELD_MAX && !(name in out.fields)) out.fields[name] = Buffer.concat(chunks).toString("utf8");
    } else if (name === "image" && !out.image && size > 0 && filename) {
      out.image = { name: filename.slice(0, 200), type: contentType, size, bytes: size <= IMAGE_MAX_BYTES ? new Uint8Array(Buffer.concat(chunks)) : undefined };
    }
    return undefined;
  };
  try {
    await unstable_parseMultipartFormData(request, handler);
  } catch (error) {
    if (!(error instanceof Stop) && !String(error).includes("Stop")) throw error;
    out.tooLarge = true;
  }
  return out;
}
