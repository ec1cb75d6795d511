// The payment modal as a pure state machine (spec section 4): starting -> form -> in progress ->
// success or failed. Closing is blocked while in progress. After the provider's checkout window
// closes, PENDING counts as failed, FAILED shows the provider's description, SUCCESS shows success.
import { parseQuantity } from "./money";

export type PaymentStatus = "PENDING" | "SUCCESS" | "FAILED";

export type ModalState =
  | { name: "closed" }
  | { name: "starting" }
  | { name: "form"; quantity: string }
  | { name: "in_progress"; quantity: string; ref: string | null }
  | { name: "success"; ref: string }
  | { name: "failed"; quantity: string; description: string; billingMissing: boolean };

export type ModalEvent =
  | { type: "OPEN" }
  /** The opening spinner has run its course. */
  | { type: "READY" }
  | { type: "INPUT"; value: string }
  | { type: "SUBMIT" }
  /** POST /api/payment/create answered with a payment ref; the checkout window is open. */
  | { type: "CREATED"; ref: string }
  | { type: "CREATE_FAILED"; description: string; billingMissing: boolean }
  /** A poll of GET /api/payment/status while the checkout window is still open. */
  | { type: "STATUS"; status: PaymentStatus; description: string }
  /** The checkout window was closed; status is the answer of the check made right after. */
  | { type: "CHECKOUT_CLOSED"; status: PaymentStatus; description: string }
  /** The status check itself failed: the server's answer is the error. */
  | { type: "STATUS_ERROR"; description: string }
  | { type: "CLOSE" }
  | { type: "RETRY" };

export const CLOSED: ModalState = { name: "closed" };

/** Digits only (or empty while typing). */
export const acceptsInput = (value: string) => /^\d*$/.test(value);

/** Continue is enabled only for a positive whole number. */
export function canContinue(state: ModalState) {
  return state.name === "form" && parseQuantity(state.quantity) !== null;
}

export const canClose = (state: ModalState) => state.name !== "in_progress";

export function transition(state: ModalState, event: ModalEvent): ModalState {
  switch (event.type) {
    case "OPEN":
      return state.name === "closed" ? { name: "starting" } : state;
    case "READY":
      return state.name === "starting" ? { name: "form", quantity: "" } : state;
    case "INPUT":
      return state.name === "form" && acceptsInput(event.value) ? { ...state, quantity: event.value } : state;
    case "SUBMIT":
      return canContinue(state) && state.name === "form" ? { name: "in_progress", quantity: state.quantity, ref: null } : state;
    case "CREATED":
      return state.name === "in_progress" && state.ref === null ? { ...state, ref: event.ref } : state;
    case "CREATE_FAILED":
      return state.name === "in_progress" && state.ref === null
        ? { name: "failed", quantity: state.quantity, description: event.description, billingMissing: event.billingMissing }
        : state;
    case "STATUS":
      if (state.name !== "in_progress" || state.ref === null || event.status === "PENDING") return state;
      return settle(state, event.status, event.description);
    case "CHECKOUT_CLOSED":
      if (state.name !== "in_progress" || state.ref === null) return state;
      // still PENDING once the checkout is gone: the payment did not happen
      return settle(state, event.status === "PENDING" ? "FAILED" : event.status, event.description);
    case "STATUS_ERROR":
      return state.name === "in_progress" && state.ref !== null
        ? { name: "failed", quantity: state.quantity, description: event.description, billingMissing: false }
        : state;
    case "CLOSE":
      return canClose(state) ? CLOSED : state;
    case "RETRY":
      return state.name === "failed" ? { name: "form", quantity: state.quantity } : state;
  }
}

function settle(state: Extract<ModalState, { name: "in_progress" }>, status: "SUCCESS" | "FAILED", description: string): ModalState {
  if (status === "SUCCESS") return { name: "success", ref: state.ref! };
  return { name: "failed", quantity: state.quantity, description, billingMissing: false };
}
