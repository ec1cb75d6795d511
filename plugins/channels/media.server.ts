// A customer's file fetched from the address a provider's event carries (Messenger's and
// Instagram's CDN links, X's ton.twitter.com). The event is signed, but its address is only a
// string in it: it is fetched only from the provider's own file hosts over https, or from the
// account's API address (where a stand-in or a proxy answers), and read as a stream that stops at
// the provider's size limit, so a wrong or hostile address neither reaches the private network nor
// fills memory. A refused file is left out of the message; the customer's text still arrives.
import { PermanentFailure } from "~/jobs/queue.server";

const MAX_REDIRECTS = 3;

/** A file address or size the provider would never send: the message arrives without it. */
export class RefusedFile extends PermanentFailure {}

const originOf = (address: string | undefined) => {
  try {
    return address ? new URL(address).origin : null;
  } catch {
    return null;
  }
};

/** The address, when it is on one of `hosts` (or a subdomain) over https, or on the account's API origin. */
export function providerFileAddress(address: string, hosts: readonly string[], apiBase?: string): URL {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new RefusedFile(`a file address that is not one: ${address.slice(0, 100)}`);
  }
  if (url.origin === originOf(apiBase)) return url;
  const host = url.hostname.toLowerCase();
  const known = hosts.some((h) => host === h || host.endsWith(`.${h}`));
  if (url.protocol === "https:" && !url.username && !url.password && known) return url;
  throw new RefusedFile(`a file address outside the provider's file hosts: ${url.protocol}//${url.host}`);
}

/** Reads a response's body up to `maxBytes`, cancelling the download at the first byte over. */
export async function boundedBytes(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new RefusedFile(`a customer's file of ${declared} bytes, over ${maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  if (!reader) return Buffer.alloc(0);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new RefusedFile(`a customer's file over ${maxBytes} bytes`);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

/**
 * Fetches a customer's file from a provider's file host. A failing answer is `failure`'s error (the
 * event is tried again with backoff); an address or size out of bounds is a RefusedFile.
 */
export async function fetchProviderFile(
  address: string,
  options: { hosts: readonly string[]; apiBase?: string; maxBytes: number; failure: (response: Response) => Promise<Error> | Error },
) {
  // redirects are followed by hand, each address checked like the first
  let url = providerFileAddress(address, options.hosts, options.apiBase);
  let response: Response;
  for (let hop = 0; ; hop++) {
    response = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(60_000) });
    const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
    if (!location) break;
    await response.body?.cancel();
    if (hop >= MAX_REDIRECTS) throw new RefusedFile(`a file address redirected more than ${MAX_REDIRECTS} times`);
    url = providerFileAddress(new URL(location, url).toString(), options.hosts, options.apiBase);
  }
  if (!response.ok) throw await options.failure(response);
  const mime = (response.headers.get("content-type") ?? "").split(";")[0].trim() || "application/octet-stream";
  return { bytes: await boundedBytes(response, options.maxBytes), mime };
}
