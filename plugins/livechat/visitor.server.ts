// The visitor's side of live chat, shared by the pages and their JSON twins: forms, limits and
// what a visit's page shows. Visitors have no session: the visit token in the URL is their key.
import { RateLimiterMemory } from "rate-limiter-flexible";
import { z } from "zod";
import * as livechat from "./livechat.server";
import { MAX_VISITOR_MESSAGE, MESSAGES_PER_MINUTE, VISITS_PER_ADDRESS } from "./limits";
import { getSettings } from "~/models/settings.server";
import { checkAddresses } from "~/conversation/forms";
import { readBody } from "~/api.server";

const EMPTY = "livechat.empty";
const field = (max: number) => z.string().trim().min(1, EMPTY).max(max);

/** Name, phone, email and message with agents online; only the message when offline. */
export function registrationSchema(online: boolean) {
  return online
    ? z.object({ name: field(120), phone: field(40), email: field(200), message: field(MAX_VISITOR_MESSAGE) })
    : z.object({ name: z.string().trim().max(120), phone: z.string().trim().max(40), email: z.string().trim().max(200), message: field(MAX_VISITOR_MESSAGE) });
}
export type RegistrationField = "name" | "phone" | "email" | "message";
export type FieldErrors = Partial<Record<RegistrationField | "form" | "rating" | "reason", string>>;
/** What a visitor's form post answers when it is refused. */
export type VisitorActionResult = { errors: FieldErrors; errorValues?: Record<string, string>; values?: Record<string, string> };

/** Stars are required; under 5 a reason is required too (spec section 5). */
export const ratingSchema = z
  .object({ rating: z.coerce.number().int().min(1, "livechat.rateRequired").max(5, "livechat.rateRequired"), reason: z.string().trim().max(2000) })
  .refine((r) => r.rating === 5 || r.reason.length > 0, { message: "livechat.reasonRequired", path: ["reason"] });

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

function firstErrors(issues: z.ZodIssue[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) errors[issue.path[0] as keyof FieldErrors] ??= issue.message;
  return errors;
}

/** The visitor's address, as server.ts puts it in the load context (rate limits count by it). */
export const clientIpOf = (context: unknown) => (context as { clientIp?: string }).clientIp ?? "unknown";

/** A JSON twin's request: its fields as strings (JSON numbers too), its visit, and whether _token is the visit's. */
export async function visitorApiRequest(request: Request) {
  const raw = await readBody(request);
  const body = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, typeof v === "string" || typeof v === "number" ? String(v) : undefined]));
  const visit = await livechat.findVisit(body.token);
  return { body, visit, csrfOk: !!visit && livechat.validVisitCsrf(visit.token, body._token) };
}

type Outcome = { ok: true } | { ok: false; status: number; errors: FieldErrors; errorValues?: Record<string, string> };

export async function registerVisitor(visit: livechat.Visit, values: Record<RegistrationField, string>, clientIp: string): Promise<Outcome> {
  if (visit.state !== "new") return { ok: true }; // already registered: the page shows where it stands
  const online = await livechat.agentsOnline();
  const parsed = registrationSchema(online).safeParse(values);
  if (!parsed.success) return { ok: false, status: 400, errors: firstErrors(parsed.error.issues) };
  const { email } = parsed.data;
  if (email && (checkAddresses(email).bad || checkAddresses(email).addresses.length !== 1))
    return { ok: false, status: 400, errors: { email: "conversation.badEmail" }, errorValues: { address: email } };
  if (!(await allow(registrations, clientIp))) return { ok: false, status: 429, errors: { form: "livechat.tooMany" } };
  try {
    await livechat.register(visit, parsed.data, online);
  } catch (error) {
    if (!(error instanceof livechat.VisitConflict)) throw error;
  }
  return { ok: true };
}

export async function sendVisitorMessage(visit: livechat.Visit, text: string): Promise<Outcome> {
  const body = text.trim();
  if (!body) return { ok: false, status: 400, errors: { message: EMPTY } };
  if (body.length > MAX_VISITOR_MESSAGE) return { ok: false, status: 413, errors: { message: "livechat.tooLong" }, errorValues: { max: String(MAX_VISITOR_MESSAGE) } };
  if (!(await allow(messages, visit.token))) return { ok: false, status: 429, errors: { form: "livechat.tooMany" } };
  try {
    await livechat.visitorMessage(visit, body);
  } catch (error) {
    if (error instanceof livechat.VisitConflict) return { ok: false, status: 409, errors: { form: "livechat.notActive" } };
    throw error;
  }
  return { ok: true };
}

export async function rateVisit(visit: livechat.Visit, values: { rating: string; reason: string }): Promise<Outcome> {
  const parsed = ratingSchema.safeParse(values);
  if (!parsed.success) return { ok: false, status: 400, errors: firstErrors(parsed.error.issues) };
  try {
    await livechat.rateLiveChat(visit, parsed.data.rating, parsed.data.reason);
  } catch (error) {
    if (error instanceof livechat.VisitConflict) return { ok: false, status: 409, errors: { form: "livechat.alreadyRated" } };
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
    links: { privacy: settings.privacy_url, terms: settings.terms_url },
  };
}
export type VisitorPageData = Awaited<ReturnType<typeof visitorPage>>;
