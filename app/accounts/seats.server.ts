// Seats: how many accounts the workspace may have. Every account that is not disabled takes one,
// invited ones too (their link makes an account at any moment).
//
// The rule, read from plugins/payment: a settled payment writes `seats` = the quantity bought (a
// positive whole number, parseQuantity) together with `account_type` 1; nothing else writes it.
// - A trial workspace (account_type 0) gets `trial_seats`.
// - `seats` > 0: the workspace bought that many; the limit holds after the plan runs out too (an
//   expired plan does not unlock more users) and whether or not the edition shows /plan.
// - `seats` 0: nothing was ever bought through the payment plugin (the demo seed, a self-hosted
//   install, an Enterprise plan arranged by sales): no limit.
import { count, isNull } from "drizzle-orm";
import { getDb, type Tx } from "@db/client";
import { getSettings } from "~/models/settings.server";

/** The most accounts allowed, or null for no limit (see the rule above). */
export function seatLimitOf(s: { account_type: string; seats: string; trial_seats: string }): number | null {
  if (Number(s.account_type) === 0) return Math.max(0, Math.floor(Number(s.trial_seats) || 0));
  const bought = Math.floor(Number(s.seats) || 0);
  return bought > 0 ? bought : null;
}

/** Accounts that take a seat: every one not disabled (active or invited). */
export async function seatsUsed(tx?: Tx) {
  const { db, schema } = getDb();
  const [row] = await (tx ?? db).select({ n: count() }).from(schema.users).where(isNull(schema.users.disabledAt));
  return Number(row?.n ?? 0);
}

export async function seatState(tx?: Tx) {
  const [settings, used] = await Promise.all([getSettings(), seatsUsed(tx)]);
  const limit = seatLimitOf(settings);
  return { limit, used, trial: Number(settings.account_type) === 0 };
}

/** Whether `more` accounts fit; call inside the transaction that adds them, after its lock. */
export async function seatsFree(more: number, tx?: Tx) {
  const state = await seatState(tx);
  return { ...state, ok: state.limit === null || state.used + more <= state.limit };
}
