// Reads the product form (multipart: short text fields and one `image` file) so that a refused
// image never loses what was typed: an image over the limit is read on and dropped, and a body past
// the whole limit stops there with the fields sent before it (the form puts the file last).
import { unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import { IMAGE_MAX_BYTES, LIMITS } from "./products.server";

const FIELD_MAX = LIMITS.description * 4 + 1024;
/** The most a product form may weigh: past it the reading stops (an image this big is refused anyway). */
export const FORM_BODY_MAX = 16 * 1024 * 1024;

export interface ProductForm {
  fields: Record<string, string>;
  image: Uint8Array | null;
  /** The image was over IMAGE_MAX_BYTES (or the body over FORM_BODY_MAX). */
  tooLarge: boolean;
}

class Stop extends Error {
  constructor() {
    super("product form too large");
  }
}

export async function readProductForm(request: Request): Promise<ProductForm> {
  const out: ProductForm = { fields: {}, image: null, tooLarge: false };
  if (!(request.headers.get("Content-Type") ?? "").includes("multipart/form-data")) {
    // a form without a file input (the JSON-less edit of a client): text fields only
    const form = await request.formData();
    for (const [name, value] of form) if (typeof value === "string" && !(name in out.fields)) out.fields[name] = value.slice(0, FIELD_MAX);
    return out;
  }
  // a declared length past the limit is refused before a byte is read: nothing typed can be kept
  if (Number(request.headers.get("Content-Length") ?? 0) > FORM_BODY_MAX) return { ...out, tooLarge: true };
  let total = 0;
  const handler: UploadHandler = async ({ name, filename, data }) => {
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
    } else if (name === "image" && out.image === null && size > 0) {
      if (size > IMAGE_MAX_BYTES) out.tooLarge = true;
      else out.image = new Uint8Array(Buffer.concat(chunks));
    }
    return undefined;
  };
  try {
    await unstable_parseMultipartFormData(request, handler);
  } catch (error) {
    // the parser wraps the handler's error: the body was too large, the fields before it are kept
    if (!(error instanceof Stop) && !String(error).includes("product form too large")) throw error;
    out.tooLarge = true;
  }
  return out;
}
