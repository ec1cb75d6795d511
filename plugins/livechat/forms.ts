// zod schemas of the live chat's forms: the visitor's (registration, message, rating), shared by
// the pages and their JSON twins, and the agent's controls above the conversation.
import { z } from "zod";
import { idSchema, oneAddress } from "~/conversation/forms";
import { MAX_VISITOR_MESSAGE } from "./limits";

const EMPTY = "livechat.empty";
export const TOO_LONG = "livechat.tooLong";
const field = (max: number) => z.string().trim().min(1, EMPTY).max(max);

/** Name, phone, email and message with agents online; only the message when offline. An email given is one address. */
export function registrationSchema(online: boolean) {
  return (
    online
      ? z.object({ name: field(120), phone: field(40), email: field(200), message: field(MAX_VISITOR_MESSAGE) })
      : z.object({ name: z.string().trim().max(120), phone: z.string().trim().max(40), email: z.string().trim().max(200), message: field(MAX_VISITOR_MESSAGE) })
  ).transform(oneAddress);
}
export const REGISTRATION_FIELDS = ["name", "phone", "email", "message"] as const;
export type RegistrationField = (typeof REGISTRATION_FIELDS)[number];

/** A visitor's chat message (too long is its own error: the limit is in the text). */
export const visitorMessageSchema = z.object({ message: z.string().trim().min(1, EMPTY).max(MAX_VISITOR_MESSAGE, TOO_LONG) });

/** Stars are required; under 5 a reason is required too (spec section 5). */
export const ratingSchema = z
  .object({ rating: z.coerce.number().int().min(1, "livechat.rateRequired").max(5, "livechat.rateRequired"), reason: z.string().trim().max(2000) })
  .refine((r) => r.rating === 5 || r.reason.length > 0, { message: "livechat.reasonRequired", path: ["reason"] });

/** The agent's controls on /livechat/{n}; other intents are the conversation's forms. */
export const controlsSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("accept") }),
  z.object({ intent: z.literal("end") }),
  z.object({ intent: z.literal("convert") }),
  z.object({ intent: z.literal("merge"), into: idSchema }),
  z.object({ intent: z.literal("remove") }),
]);
export const CONTROL_INTENTS: readonly string[] = controlsSchema.options.map((o) => o.shape.intent.value);

/** Accept on the desk (/livechat): the waiting chat's ticket. */
export const deskSchema = z.object({ intent: z.literal("accept"), ticket_id: idSchema });
