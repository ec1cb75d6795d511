// Which purchases a workspace may start now (spec section 6). Pure: the /plan page uses it to
// disable buttons, and the create action uses the same answer to refuse.
import { PLAN_IDS, PURCHASABLE, isPurchasable, type PurchasablePlan } from "./money";

export interface SubscriptionState {
  plan: number;
  accountType: number;
  expiresAt: number | null;
}

export type Refusal = "enterprise" | "active" | "in_progress" | "plan" | "no_plan";

export const isTrialAccount = (s: SubscriptionState) => s.accountType === 0;
export const isExpired = (s: SubscriptionState, now: number) => s.expiresAt !== null && s.expiresAt <= now;
/** A paid plan that has not run out. */
export const isActive = (s: SubscriptionState, now: number) =>
  !isTrialAccount(s) && (isPurchasable(s.plan) || s.plan === PLAN_IDS.ENTERPRISE) && !isExpired(s, now);

/**
 * Why buying `plan` (or renewing the current plan when plan is null: "Pay Now") is refused, or null.
 */
export function refusal(s: SubscriptionState, plan: number | null, inProgress: boolean, now: number): Refusal | null {
  if (!isTrialAccount(s) && s.plan === PLAN_IDS.ENTERPRISE) return "enterprise";
  if (inProgress) return "in_progress";
  if (isActive(s, now)) return "active";
  if (plan === null) return !isTrialAccount(s) && isPurchasable(s.plan) ? null : "no_plan";
  return isPurchasable(plan) ? null : "plan";
}

/** The plan a request buys: the chosen one, or the current one when renewing. */
export const planToBuy = (s: SubscriptionState, plan: number | null): PurchasablePlan | null => {
  const p = plan ?? s.plan;
  return isPurchasable(p) ? p : null;
};

export const buttons = (s: SubscriptionState, inProgress: boolean, now: number) =>
  Object.fromEntries(PURCHASABLE.map((p) => [p, refusal(s, p, inProgress, now) === null])) as Record<PurchasablePlan, boolean>;

/** One paid period. */
export const PERIOD_MS = 30 * 24 * 60 * 60 * 1000;
/** A PENDING payment younger than this blocks new purchases ("payment in progress"). */
export const IN_PROGRESS_MS = 15 * 60 * 1000;

/** A renewal of the same plan before it runs out extends it; anything else starts now. */
export function newExpiry(s: SubscriptionState, plan: number, now: number) {
  const base = !isTrialAccount(s) && s.plan === plan && s.expiresAt !== null && s.expiresAt > now ? s.expiresAt : now;
  return base + PERIOD_MS;
}
