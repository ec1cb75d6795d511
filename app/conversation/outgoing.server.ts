// What plugins do to an agent's reply on its way out (`outgoingReply` in a plugin's manifest): the
// AI plugin translates it into the customer's language when the agent chose another one for the
// conversation. A plugin answers the text to send and what to keep beside it (written in the
// reply's own transaction: the original as written), or a refusal (a translation key) when the
// reply must not go out as it is; null leaves the reply unchanged. The enabled plugins are asked
// in plugin order, each with the text the one before answered.
import type { Tx } from "@db/client";
import { pluginExport } from "~/plugins/modules.server";
import { plugins } from "~/plugins/registry.server";

export interface OutgoingInput {
  ticketId: number;
  body: string;
}

export type OutgoingAnswer = { body: string; keep?: (tx: Tx, messageId: number) => Promise<void> } | { refused: string; values?: Record<string, string> };

type OutgoingHook = (input: OutgoingInput) => Promise<OutgoingAnswer | null>;

export async function outgoingReply(
  input: OutgoingInput,
  enabled: readonly string[],
): Promise<{ body: string; keep: ((tx: Tx, messageId: number) => Promise<void>)[] } | { refused: string; values?: Record<string, string> }> {
  let body = input.body;
  const keep: ((tx: Tx, messageId: number) => Promise<void>)[] = [];
  for (const p of plugins().filter((p) => p.outgoingReply && enabled.includes(p.id))) {
    const answer = await (await pluginExport<OutgoingHook>(p.id, p.outgoingReply!))({ ...input, body });
    if (!answer) continue;
    if ("refused" in answer) return answer;
    body = answer.body;
    if (answer.keep) keep.push(answer.keep);
  }
  return { body, keep };
}
