// Input rules of the conversation page, shared by its action and its JSON twins.
import { z } from "zod";
import { MAX_MESSAGE_LENGTH } from "~/conversation/constants";

/** A basic address pattern, as the spec asks (section 5). */
const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/** Comma or space separated addresses; returns the first bad one, if any. */
export function checkAddresses(text: string): { addresses: string[]; bad?: string } {
  const addresses = text.split(/[\s,;]+/).map((a) => a.trim()).filter(Boolean);
  return { addresses, bad: addresses.find((a) => !EMAIL.test(a)) };
}

export const replySchema = z.object({
  message: z.string().max(MAX_MESSAGE_LENGTH, "conversation.tooLong").default(""),
  reply_to: z.coerce.number().int().positive().optional().catch(undefined),
  // recipients of e-mail replies; checked here, delivered once mail channels exist
  cc: z.string().max(2000).default(""),
  email2: z.string().max(2000).default(""),
  email: z.string().max(2000).default(""),
});

export const idSchema = z.coerce.number().int().positive();
