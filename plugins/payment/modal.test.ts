import { describe, expect, it } from "vitest";
import { CLOSED, canClose, canContinue, transition, type ModalEvent, type ModalState } from "./modal";

const run = (state: ModalState, ...events: ModalEvent[]) => events.reduce(transition, state);
const form = (quantity: string): ModalState => ({ name: "form", quantity });
const checkout: ModalState = { name: "in_progress", quantity: "3", ref: "PAY1" };
const creating: ModalState = { name: "in_progress", quantity: "3", ref: null };

describe("payment modal", () => {
  it("opens on a spinner, then shows the form", () => {
    expect(run(CLOSED, { type: "OPEN" })).toEqual({ name: "starting" });
    expect(run(CLOSED, { type: "OPEN" }, { type: "READY" })).toEqual(form(""));
  });

  it("takes digits only; Continue needs a positive whole number", () => {
    expect(run(form(""), { type: "INPUT", value: "12" })).toEqual(form("12"));
    expect(run(form("1"), { type: "INPUT", value: "1a" })).toEqual(form("1"));
    expect(run(form("1"), { type: "INPUT", value: "-1" })).toEqual(form("1"));
    expect(run(form("1"), { type: "INPUT", value: "1.5" })).toEqual(form("1"));
    expect(run(form("1"), { type: "INPUT", value: "" })).toEqual(form(""));
    expect(canContinue(form(""))).toBe(false);
    expect(canContinue(form("0"))).toBe(false);
    expect(canContinue(form("3"))).toBe(true);
    expect(run(form(""), { type: "SUBMIT" })).toEqual(form(""));
    expect(run(form("0"), { type: "SUBMIT" })).toEqual(form("0"));
    expect(run(form("3"), { type: "SUBMIT" })).toEqual(creating);
  });

  it("create answered: waits on the checkout; create refused: failed with the server's description", () => {
    expect(run(creating, { type: "CREATED", ref: "PAY1" })).toEqual(checkout);
    expect(run(creating, { type: "CREATE_FAILED", description: "Billing information could not be found.", billingMissing: true })).toEqual({
      name: "failed",
      quantity: "3",
      description: "Billing information could not be found.",
      billingMissing: true,
    });
  });

  it("polls: PENDING keeps waiting, SUCCESS succeeds, FAILED shows the provider's description", () => {
    expect(run(checkout, { type: "STATUS", status: "PENDING", description: "" })).toEqual(checkout);
    expect(run(checkout, { type: "STATUS", status: "SUCCESS", description: "" })).toEqual({ name: "success", ref: "PAY1" });
    expect(run(checkout, { type: "STATUS", status: "FAILED", description: "Card declined" })).toMatchObject({ name: "failed", description: "Card declined" });
    // polls before a ref exists change nothing
    expect(run(creating, { type: "STATUS", status: "SUCCESS", description: "" })).toEqual(creating);
  });

  it("checkout closed: PENDING counts as failed, the others as they are", () => {
    expect(run(checkout, { type: "CHECKOUT_CLOSED", status: "PENDING", description: "" })).toMatchObject({ name: "failed", billingMissing: false });
    expect(run(checkout, { type: "CHECKOUT_CLOSED", status: "FAILED", description: "Bank refused" })).toMatchObject({
      name: "failed",
      description: "Bank refused",
    });
    expect(run(checkout, { type: "CHECKOUT_CLOSED", status: "SUCCESS", description: "" })).toEqual({ name: "success", ref: "PAY1" });
    expect(run(checkout, { type: "STATUS_ERROR", description: "Not Found" })).toMatchObject({ name: "failed", description: "Not Found" });
  });

  it("cannot be closed while in progress; can be closed otherwise", () => {
    for (const s of [creating, checkout]) {
      expect(canClose(s)).toBe(false);
      expect(run(s, { type: "CLOSE" })).toEqual(s);
    }
    for (const s of [{ name: "starting" } as ModalState, form("2"), { name: "success", ref: "x" } as ModalState])
      expect(run(s, { type: "CLOSE" })).toEqual(CLOSED);
  });

  it("retry after a failure goes back to the form with the same number", () => {
    const failed = run(checkout, { type: "STATUS", status: "FAILED", description: "x" });
    expect(run(failed, { type: "RETRY" })).toEqual(form("3"));
    expect(run(failed, { type: "CLOSE" })).toEqual(CLOSED);
  });

  it("ignores events that do not belong to the state", () => {
    expect(run(CLOSED, { type: "READY" }, { type: "SUBMIT" }, { type: "RETRY" })).toEqual(CLOSED);
    expect(run(form("3"), { type: "OPEN" })).toEqual(form("3"));
    expect(run(checkout, { type: "CREATED", ref: "OTHER" })).toEqual(checkout);
    expect(run({ name: "success", ref: "x" }, { type: "STATUS", status: "FAILED", description: "late" })).toEqual({ name: "success", ref: "x" });
  });
});
