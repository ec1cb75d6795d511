import { describe, expect, it } from "vitest";
import { buttons, newExpiry, PERIOD_MS, refusal, type SubscriptionState } from "./rules";

const NOW = Date.UTC(2026, 10, 21, 12);
const trial: SubscriptionState = { plan: 0, accountType: 0, expiresAt: NOW - 1 };
const activeBasic: SubscriptionState = { plan: 2, accountType: 1, expiresAt: NOW + 1000 };
const expiredBasic: SubscriptionState = { plan: 2, accountType: 1, expiresAt: NOW - 1000 };
const enterprise: SubscriptionState = { plan: 4, accountType: 1, expiresAt: null };

describe("purchase rules", () => {
  it.each([
    ["trial buys Basic", trial, 2, false, null],
    ["trial cannot renew (no paid plan)", trial, null, false, "no_plan"],
    ["trial cannot buy Enterprise here", trial, 4, false, "plan"],
    ["active plan blocks buying", activeBasic, 3, false, "active"],
    ["active plan blocks renewing", activeBasic, null, false, "active"],
    ["expired Basic renews (Pay Now)", expiredBasic, null, false, null],
    ["expired Basic switches plan", expiredBasic, 3, false, null],
    ["a payment in progress blocks", expiredBasic, 3, true, "in_progress"],
    ["Enterprise blocks everything", enterprise, 1, false, "enterprise"],
    ["Enterprise blocks even when expired", { ...enterprise, expiresAt: NOW - 1 }, 2, false, "enterprise"],
    ["a plan without expiry is active", { plan: 3, accountType: 1, expiresAt: null }, 2, false, "active"],
    ["unknown plan 99 may buy", { plan: 99, accountType: 1, expiresAt: null }, 2, false, null],
  ] as const)("%s", (_name, state, plan, inProgress, expected) => {
    expect(refusal(state, plan, inProgress, NOW)).toBe(expected);
  });

  it("buttons follow the same rules", () => {
    expect(buttons(trial, false, NOW)).toEqual({ 1: true, 2: true, 3: true });
    expect(buttons(trial, true, NOW)).toEqual({ 1: false, 2: false, 3: false });
    expect(buttons(activeBasic, false, NOW)).toEqual({ 1: false, 2: false, 3: false });
    expect(buttons(enterprise, false, NOW)).toEqual({ 1: false, 2: false, 3: false });
  });

  it("a renewal before the end extends from the old expiry; anything else starts now", () => {
    expect(newExpiry(activeBasic, 2, NOW)).toBe(activeBasic.expiresAt! + PERIOD_MS);
    expect(newExpiry(activeBasic, 3, NOW)).toBe(NOW + PERIOD_MS);
    expect(newExpiry(expiredBasic, 2, NOW)).toBe(NOW + PERIOD_MS);
    expect(newExpiry(trial, 2, NOW)).toBe(NOW + PERIOD_MS);
  });
});
