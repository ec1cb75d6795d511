// bench/channels' verdict, apart so a test can hold it to account: which customer messages were
// doubled, lost after their 200, or never acknowledged. Counted against the provider ids actually
// stored, never against how many calls were meant to go in: a warm-up call refused under load (a
// 500 when the SQLite write lock waited past busy_timeout) is one message fewer stored, and taking
// "200 warm-up messages" for granted counted that as a duplicate of the main run.

export interface ChannelsTallyInput {
  /** The provider ids of the main run's customer messages (the warm-up's apart). */
  sent: Iterable<string>;
  /** Those the product answered 200 for (they must all be stored). */
  acknowledged: Iterable<string>;
  /** Every provider id stored as a customer's message on the account (warm-up ones too). */
  stored: Iterable<string>;
  /** Customers' messages written on the main run's conversations (the warm-up's tickets left out). */
  messagesWritten: number;
}

export function tallyChannels(input: ChannelsTallyInput) {
  const stored = new Set(input.stored);
  const sent = new Set(input.sent);
  const acknowledged = new Set(input.acknowledged);
  const storedOfRun = [...sent].filter((id) => stored.has(id)).length;
  return {
    duplicates: input.messagesWritten - storedOfRun,
    lost: [...acknowledged].filter((id) => !stored.has(id)).length,
    notAcknowledged: [...sent].filter((id) => !acknowledged.has(id) && !stored.has(id)).length,
  };
}
