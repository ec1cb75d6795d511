// Input rules of the conversation page, shared by its action and its JSON twins.
import { z } from "zod";
import { MAX_MESSAGE_LENGTH, PRIORITIES } from "~/conversation/constants";
import { EMAIL_PATTERN, valueList } from "~/forms";

/** Comma or space separated addresses; returns the first bad one, if any. */
export function checkAddresses(text: string): { addresses: string[]; bad?: string } {
  const addresses = text
    .split(/[\s,;]+/)
    .map((a) => a.trim())
    .filter(Boolean);
  return { addresses, bad: addresses.find((a) => !EMAIL_PATTERN.test(a)) };
}

/**
 * A public form's one e-mail address (new ticket, live chat), for `.transform` after the field
 * checks, so it is looked at once the rest is valid; the error names the address.
 */
export function oneAddress<T extends { email: string }>(data: T, ctx: z.RefinementCtx): T {
  const { addresses, bad } = checkAddresses(data.email);
  if (data.email && (bad || addresses.length !== 1))
    ctx.addIssue({ code: "custom", message: "conversation.badEmail", path: ["email"], params: { address: data.email } });
  return data;
}

export const replySchema = z.object({
  message: z.string().max(MAX_MESSAGE_LENGTH, "conversation.tooLong").default(""),
  reply_to: z.coerce.number().int().positive().optional().catch(undefined),
  // recipients of replies that go out on a channel (delivery.server.ts replyRecipients)
  cc: z.string().max(2000).default(""),
  email2: z.string().max(2000).default(""),
  email: z.string().max(2000).default(""),
  toEmail: z.string().max(2000).default(""),
});

export const idSchema = z.coerce.number().int().positive();

/**
 * The page's other forms, one schema per intent (the reply is read by replySchema, in sendReply).
 * Their fields are hidden inputs and selects, so a refusal is always 'conversation.badInput'.
 */
export const conversationFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("reply") }),
  // the model ignores a status out of range or unchanged
  z.object({ intent: z.literal("status"), status: z.coerce.number().int() }),
  z.object({ intent: z.literal("priority"), priority: z.enum(PRIORITIES) }),
  // checkboxes (none ticked: no field); ids of labels that are gone are dropped by the model
  z.object({
    intent: z.literal("labels"),
    label: z
      .string()
      .default("")
      .transform((v) => valueList(v).map(Number).filter(Number.isInteger)),
  }),
  z.object({ intent: z.literal("department"), department: z.union([z.literal("").transform(() => null), idSchema]) }),
  z.object({
    intent: z.literal("add_participant"),
    username: z.string().default(""),
    assignee: z
      .string()
      .default("")
      .transform((v) => v === "1"),
  }),
  z.object({ intent: z.literal("remove_participant"), user_id: idSchema }),
  z.object({ intent: z.literal("note"), message_id: idSchema, note: z.string().trim().default("") }),
  z.object({ intent: z.literal("delete_note"), note_id: idSchema }),
  z.object({ intent: z.literal("react"), message_id: idSchema, reaction: z.string().default("") }),
  z.object({ intent: z.literal("pin"), message_id: idSchema }),
  z.object({ intent: z.literal("delete_message"), message_id: idSchema }),
  z.object({ intent: z.literal("retry_delivery"), message_id: idSchema }),
]);
