// GET /api/wauchat ?type, message, _token (spec section 7): the caller talks to the WAUCHAT bot.
// With `message`: stored and answered; the answer lists the messages after it (the bot's reply).
// Without: the messages after `after` (a message id; else the latest), the agents' replies after a
// handover. -> {result: "success", data: {ticket, status, with: "bot"|"agent", messages: [...]}}
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { z } from "zod";
import { apiInput, requireApiUser } from "~/api.server";
import { guardPluginRoute } from "~/context.server";
import { MAX_MESSAGE_LENGTH } from "~/conversation/constants";
import { fetchMessages, talk } from "../api.server";

const input = z.object({
  type: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.-]{1,40}$/, "Please check the type: up to 40 letters, digits, '_', '.' or '-'.")
    .default("default"),
  message: z.string().trim().max(MAX_MESSAGE_LENGTH, "The message is too long.").optional(),
  after: z.coerce.number().int().min(0, "Please check the input.").max(Number.MAX_SAFE_INTEGER, "Please check the input.").default(0),
});

export async function loader({ request, context }: LoaderFunctionArgs) {
  await guardPluginRoute(request, context);
  const user = await requireApiUser(request);
  const q = apiInput(request, input);
  if (q.message) return json({ result: "success", data: await talk(user, q.type, q.message) });
  const data = await fetchMessages(user, q.type, q.after);
  if (!data) return json({ result: "failed", description: "No conversation yet: send a message first." }, { status: 404 });
  return json({ result: "success", data });
}
