// The Telegram Bot API through grammY's Api client (https://api.telegram.org/bot<token>/<method>,
// or the account's apiBase: a local Bot API server, the tests' stand-in), its errors as the queue
// needs them, and customers' files: getFile gives a file_path, the bytes are at
// <apiBase>/file/bot<token>/<file_path> (up to 20 MB). Errors come as
// {"ok": false, "error_code", "description", "parameters": {"retry_after"}}.
import { Api, GrammyError, HttpError } from "grammy";
import { PermanentFailure } from "~/jobs/queue.server";
import { rateLimited } from "@plugins/channels/rate-limit.server";
import { providerError } from "@plugins/channels/messaging.server";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { DOWNLOAD_MAX, sizeText } from "./limits";

export const TELEGRAM_API = "https://api.telegram.org";

/** Long enough for a 50 MB upload and for getUpdates' long poll (25 s) with room to spare. */
const CALL_TIMEOUT_SECONDS = 120;

export const apiRoot = (account: ChannelAccount) => (account.config.apiBase || TELEGRAM_API).trim().replace(/\/+$/, "");

/** The Bot API client of an account. */
export const telegramApi = (account: ChannelAccount) =>
  new Api(account.secrets.botToken ?? "", { apiRoot: apiRoot(account), timeoutSeconds: CALL_TIMEOUT_SECONDS });

/** Telegram's refusal as grammY hands it over (duck-typed: server.ts and the Remix build may each load their own copy). */
const isApiError = (error: unknown): error is Pick<GrammyError, "error_code" | "description" | "parameters"> =>
  error instanceof GrammyError || (!!error && typeof (error as GrammyError).error_code === "number" && typeof (error as GrammyError).description === "string");

/** Telegram's refusal (409: another poller, or a webhook is set), else undefined. */
export const telegramRefusal = (error: unknown) => (isApiError(error) ? { code: error.error_code, description: error.description } : undefined);

/**
 * A failed call as the queue needs it, in Telegram's own words: 429 waits parameters.retry_after
 * seconds (no attempt used), other 4xx refusals cannot get better by trying again, 5xx and network
 * trouble are tried again with backoff.
 */
export function telegramFailure(error: unknown): Error {
  if (isApiError(error)) {
    const words = (error.description || `error ${error.error_code}`).slice(0, 500);
    if (error.error_code === 429) {
      const after = Number(error.parameters?.retry_after);
      return rateLimited(words, after * 1000);
    }
    if (error.error_code >= 400 && error.error_code < 500 && error.error_code !== 408) return new PermanentFailure(words);
    return new Error(words);
  }
  if (error instanceof HttpError) return new Error(`Telegram could not be reached: ${String((error.error as Error)?.message ?? error.message)}`.slice(0, 500));
  return error instanceof Error ? error : new Error(String(error));
}

/** Calls the API; throws telegramFailure's error when refused. */
export async function telegramCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw telegramFailure(error);
  }
}

/** Telegram's error JSON, for the file download (a plain GET, not a method call). */
const describeTelegram = (body: unknown, text: string) => {
  const b = body as { description?: string } | null;
  return b?.description || text.slice(0, 200);
};

/** A customer's file: its path from getFile, then the bytes, refused beyond the 20 MB bots may fetch. */
export async function downloadTelegramFile(account: ChannelAccount, fileId: string) {
  const file = await telegramCall(() => telegramApi(account).getFile(fileId));
  if (!file.file_path) throw new Error("Telegram gave no file_path for this file");
  if (file.file_size && file.file_size > DOWNLOAD_MAX) throw new PermanentFailure(`file is too big (${sizeText(file.file_size)})`);
  const path = file.file_path.split("/").map(encodeURIComponent).join("/");
  const response = await fetch(`${apiRoot(account)}/file/bot${account.secrets.botToken ?? ""}/${path}`, { signal: AbortSignal.timeout(60_000) });
  if (!response.ok) throw await providerError(response, describeTelegram);
  const length = Number(response.headers.get("content-length") ?? 0);
  if (length > DOWNLOAD_MAX) {
    await response.body?.cancel();
    throw new PermanentFailure(`file is too big (${sizeText(length)})`);
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  if (bytes.length > DOWNLOAD_MAX) throw new PermanentFailure(`file is too big (${sizeText(bytes.length)})`);
  return { bytes, mime: response.headers.get("content-type")?.split(";")[0].trim() || "", path: file.file_path };
}
