// The visitor's side of live chat, shared by the pages and their JSON twins: forms, limits and
// what a visit's page shows. Visitors have no session: the visit token in the URL is their key.
import { RateLimiterMemory } from "rate-limiter-flexible";
import * as livechat from "./livechat.server";
import { MAX_VISITOR_MESSAGE, MESSAGES_PER_MINUTE, VISITS_PER_ADDRESS } from "./limits";
import { ratingSchema, registrationSchema, TOO_LONG, visitorMessageSchema, type RegistrationField } from "./forms";
import { getSettings } from "~/models/settings.server";
import { formError, formResult, type FormResult } from "~/forms";
import { readBody } from "~/api.server";
import { EncryptionRefused } from "~/conversation/model.server";
import { CLIENT_ID_PATTERN, isEnvelope } from "~/conversation/encrypted";
import { visitorKeys } from "~/conversation/visitor-e2ee.server";

/** Live chats a visitor address may open per 10 minutes (the browser tests raise it: one address). */
const LIVECHATS_PER_VISITOR = Number(process.env.LIVECHATS_PER_VISITOR || 5);
const registrations = new RateLimiterMemory({ points: LIVECHATS_PER_VISITOR, duration: 600 });
const messages = new RateLimiterMemory({ points: MESSAGES_PER_MINUTE, duration: 60 });
const visits = new RateLimiterMemory({ points: Math.max(VISITS_PER_ADDRESS, 4 * LIVECHATS_PER_VISITOR), duration: 600 });

/** Consumes one point; false when the key is over its limit. */
async function allow(limiter: RateLimiterMemory, key: string) {
  try {
    await limiter.consume(key);
    return true;
  } catch {
    return false;
  }
}
export const allowVisit = (clientIp: string) => allow(visits, clientIp);

/** The visitor's address, as server.ts puts it in the load context (rate limits count by it). */
export const clientIpOf = (context: unknown) => (context as { clientIp?: string }).clientIp ?? "unknown";

/** A JSON twin's request: its fields as strings (JSON numbers too), its visit, and whether _token is the visit's. */
export async function visitorApiRequest(request: Request) {
  const raw = await readBody(request);
  const body = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === "string" || typeof v === "number" ? String(v) : undefined]));
  const visit = await livechat.findVisit(body.token);
  return { body, visit, csrfOk: !!visit && livechat.validVisitCsrf(visit.token, body._token) };
}

/** Refused: the page answers `result` with `status` (JSON twins: see apiErrors). */
type Outcome = { ok: true } | { ok: false; status: number; result: FormResult };
const refused = (status: number, result: Partial<FormResult>): Outcome => ({ ok: false, status, result: formResult(result) });

/** The JSON twins' `errors` (their contract): the field errors, and the form's message as `form`. */
export const apiErrors = (result: FormResult) => (result.message ? { ...result.errors, form: result.message } : result.errors);

/** `visitorKey`: the hash of the browser's own key (visitor-key.server.ts), which groups its chats. */
export async function registerVisitor(
  visit: livechat.Visit,
  values: Record<RegistrationField, string>,
  clientIp: string,
  visitorKey: string,
): Promise<Outcome> {
  if (visit.state !== "new") return { ok: true }; // already registered: the page shows where it stands
  const online = await livechat.agentsOnline();
  const parsed = registrationSchema(online).safeParse(values);
  if (!parsed.success) return { ok: false, status: 400, result: formError(parsed.error, values) };
  if (!(await allow(registrations, clientIp))) return refused(429, { message: "livechat.tooMany", values });
  try {
    await livechat.register(visit, parsed.data, online, visitorKey);
  } catch (error) {
    if (!(error instanceof livechat.VisitConflict)) throw error;
  }
  return { ok: true };
}

/** The sealed message's fields as the visitor's script posts them (`cipher`, `key_version`, `client_id`): undefined when none, null when malformed. */
export function sealedFields(fields: Record<string, unknown>): livechat.SealedMessage | null | undefined {
  const cipher = typeof fields.cipher === "string" ? fields.cipher : "";
  if (!cipher) return undefined;
  const keyVersion = Number(fields.key_version);
  const clientId = typeof fields.client_id === "string" ? fields.client_id : "";
  if (!isEnvelope(cipher) || !CLIENT_ID_PATTERN.test(clientId) || !Number.isSafeInteger(keyVersion)) return null;
  return { cipher, keyVersion, clientId };
}

/** A refused message is given back in `values`, so it stays in the box. `sealed`: the end-to-end encrypted form (no text beside it). */
export async function sendVisitorMessage(visit: livechat.Visit, text: string, sealed?: livechat.SealedMessage | null): Promise<Outcome> {
  const values = { message: text };
  if (sealed === null || (sealed && text.trim())) return refused(400, { message: "conversation.encryption.malformed", values });
  let message = "";
  if (!sealed) {
    const parsed = visitorMessageSchema.safeParse(values);
    if (!parsed.success) {
      const result = formError(parsed.error, values);
      if (result.errors.message === TOO_LONG) return { ok: false, status: 413, result: { ...result, messageValues: { max: String(MAX_VISITOR_MESSAGE) } } };
      return { ok: false, status: 400, result };
    }
    message = parsed.data.message;
  }
  if (!(await allow(messages, visit.token))) return refused(429, { message: "livechat.tooMany", values });
  try {
    await livechat.visitorMessage(visit, message, sealed);
  } catch (error) {
    if (error instanceof livechat.VisitConflict) return refused(409, { message: "livechat.notActive", values });
    // plain text into an encrypted chat (no JavaScript), an old key version, a replay: the text stays
    if (error instanceof EncryptionRefused) return refused(409, { message: error.message, values });
    throw error;
  }
  return { ok: true };
}

export async function rateVisit(visit: livechat.Visit, values: { rating: string; reason: string }): Promise<Outcome> {
  const parsed = ratingSchema.safeParse(values);
  if (!parsed.success) return { ok: false, status: 400, result: formError(parsed.error, values) };
  try {
    await livechat.rateLiveChat(visit, parsed.data.rating, parsed.data.reason);
  } catch (error) {
    // "not over yet" is not "rated already": a rating sent while an End is on its way says so
    if (error instanceof livechat.RatingRefused) return refused(409, { message: `livechat.${error.reason}`, values });
    throw error;
  }
  return { ok: true };
}

/** Everything the visitor's page shows for one visit. */
export async function visitorPage(visit: livechat.Visit, productTitle: string) {
  const [online, identity, settings, messagesShown] = await Promise.all([
    livechat.agentsOnline(),
    livechat.widgetIdentity(productTitle),
    getSettings(),
    livechat.visitorMessages(visit),
  ]);
  return {
    /** When this was read (the page keeps the newest of its data and its refreshes). */
    at: Date.now(),
    token: visit.token,
    state: visit.state,
    result: livechat.infoResult(visit, online),
    online,
    csrf: livechat.visitCsrf(visit.token),
    identity,
    queueNumber: visit.state === "queued" ? await livechat.queueNumber(visit) : null,
    rating: visit.ticket?.rating ?? null,
    messages: messagesShown,
    /** End-to-end encryption of this chat (the visitor's script makes and publishes the key, then seals and opens). */
    e2ee: visit.ticket ? await visitorKeys(visit.ticket.id) : null,
    links: { privacy: settings.privacy_url, terms: settings.terms_url },
  };
}
export type VisitorPageData = Awaited<ReturnType<typeof visitorPage>>;
