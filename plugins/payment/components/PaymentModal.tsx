// The payment modal (JavaScript on): Number of Users, Continue, the provider's checkout in a popup
// window polled every second, then success or 'Payment failed.' (spec sections 4, 5, 8). The states
// and their rules are the pure machine in ../modal.ts; this file only wires it to the page.
import { useEffect, useReducer, useRef } from "react";
import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { canClose, canContinue, transition, type ModalState } from "../modal";
import { formatMoney, formatPercent, parseQuantity, quote, type PriceEntry, type PurchasablePlan } from "../money";

const POLL_MS = 1000;
const SPINNER_MS = 2000;

export function PaymentModal({
  plan,
  planName,
  entry,
  onClose,
  onSuccess,
}: {
  /** null: renew the current plan (the request omits plan). */
  plan: PurchasablePlan | null;
  /** The plan bought (the current one when renewing), for the preview. */
  planName: string;
  entry: PriceEntry & { plan: PurchasablePlan };
  onClose: () => void;
  onSuccess: () => void;
}) {
  const { t } = useTranslation();
  const [state, dispatch] = useReducer(transition, { name: "starting" } as ModalState);
  const popup = useRef<Window | null>(null);
  const busy = useRef(false);

  useEffect(() => {
    const timer = setTimeout(() => dispatch({ type: "READY" }), SPINNER_MS);
    return () => clearTimeout(timer);
  }, []);

  const ref = state.name === "in_progress" ? state.ref : null;
  useEffect(() => {
    if (!ref) return;
    let stopped = false;
    const timer = setInterval(async () => {
      const closed = !popup.current || popup.current.closed;
      try {
        const response = await fetch(`/api/payment/status?ref=${encodeURIComponent(ref)}`, { headers: { Accept: "application/json" } });
        const data = (await response.json().catch(() => ({}))) as { status?: "PENDING" | "SUCCESS" | "FAILED"; payment_desc?: string; description?: string };
        if (stopped) return;
        if (!response.ok || !data.status) dispatch({ type: "STATUS_ERROR", description: data.description ?? `${response.status}` });
        else dispatch({ type: closed ? "CHECKOUT_CLOSED" : "STATUS", status: data.status, description: data.payment_desc ?? "" });
      } catch (error) {
        if (!stopped) dispatch({ type: "STATUS_ERROR", description: String(error) });
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [ref]);

  useEffect(() => {
    if (state.name === "success" || state.name === "failed") {
      if (popup.current && !popup.current.closed) popup.current.close();
      popup.current = null;
      busy.current = false;
      if (state.name === "success") onSuccess();
    }
    // onSuccess is a fresh function each render of the page; the state name is what matters
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.name]);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (!canContinue(state) || busy.current || state.name !== "form") return;
    busy.current = true;
    // opened now, while the click still counts as the user's gesture, so it is not blocked
    const win = window.open("", "omnidesk-checkout", "width=520,height=720");
    dispatch({ type: "SUBMIT" });
    try {
      const response = await fetch("/api/payment/create", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ ...(plan === null ? {} : { plan }), quantity: state.quantity, idempotency_key: crypto.randomUUID() }),
      });
      const data = (await response.json().catch(() => ({}))) as {
        result?: string;
        payment_ref?: string;
        checkout_url?: string;
        description?: string;
        billing?: boolean;
      };
      if (!response.ok || data.result !== "success" || !data.payment_ref || !data.checkout_url) {
        win?.close();
        busy.current = false;
        dispatch({ type: "CREATE_FAILED", description: data.description ?? `${response.status}`, billingMissing: !!data.billing });
        return;
      }
      if (!win) {
        // no popup allowed: the checkout takes the whole page and returns to /payment?ref=
        window.location.assign(data.checkout_url);
        return;
      }
      win.location.href = data.checkout_url;
      popup.current = win;
      dispatch({ type: "CREATED", ref: data.payment_ref });
    } catch (error) {
      win?.close();
      busy.current = false;
      dispatch({ type: "CREATE_FAILED", description: String(error), billingMissing: false });
    }
  }

  const close = () => {
    if (canClose(state)) onClose();
  };
  const quantity = state.name === "form" || state.name === "in_progress" || state.name === "failed" ? state.quantity : "";
  const n = parseQuantity(quantity);
  const preview = n ? quote(entry, entry.plan, n) : null;

  return (
    <div className="modal-backdrop" onKeyDown={(e) => e.key === "Escape" && close()}>
      <div
        className="modal stack"
        role="dialog"
        aria-modal="true"
        aria-labelledby="payment-modal-title"
        aria-busy={state.name === "in_progress" || state.name === "starting"}
      >
        <h2 id="payment-modal-title">{t("payment.buyTitle", { plan: planName })}</h2>
        {state.name === "starting" ? (
          <div className="spinner" role="progressbar" aria-label={t("payment.loading")} />
        ) : state.name === "form" || state.name === "in_progress" ? (
          <form className="stack" onSubmit={submit} noValidate>
            <label>
              {t("payment.numberOfUsers")}
              <input
                name="quantity"
                inputMode="numeric"
                autoComplete="off"
                value={quantity}
                disabled={state.name === "in_progress"}
                onChange={(e) => dispatch({ type: "INPUT", value: e.target.value })}
                aria-invalid={n === null}
                aria-describedby="quantity-error"
                autoFocus
              />
            </label>
            <p id="quantity-error" className="field-error" hidden={n !== null}>
              {t("payment.errors.empty")}
            </p>
            {preview ? <Amounts q={preview} /> : null}
            {state.name === "in_progress" ? (
              <p role="status" className="row">
                <span className="spinner" aria-hidden="true" /> {t("payment.inProgress")}
              </p>
            ) : null}
            <div className="row">
              <button type="submit" className="button primary" disabled={!canContinue(state)}>
                {t("payment.continue")}
              </button>
              <button type="button" className="button" onClick={close} disabled={!canClose(state)}>
                {t("payment.close")}
              </button>
            </div>
          </form>
        ) : state.name === "success" ? (
          <div className="stack" role="status">
            <p className="notice">{t("payment.success")}</p>
            <button type="button" className="button primary" onClick={close}>
              {t("payment.close")}
            </button>
          </div>
        ) : state.name === "failed" ? (
          <div className="stack" role="alert">
            <p className="form-error">{t("payment.failed")}</p>
            {state.description ? <p data-testid="payment-desc">{state.description}</p> : null}
            <div className="row">
              {state.billingMissing ? (
                <Link className="button primary" to="/settings/billing">
                  {t("payment.addNow")}
                </Link>
              ) : (
                <button type="button" className="button primary" onClick={() => dispatch({ type: "RETRY" })}>
                  {t("payment.tryAgain")}
                </button>
              )}
              <button type="button" className="button" onClick={close}>
                {t("payment.close")}
              </button>
            </div>
          </div>
        ) : null}
      </div>
    </div>
  );
}

export function Amounts({ q }: { q: ReturnType<typeof quote> }) {
  const { t } = useTranslation();
  const money = (minor: number) => formatMoney(minor, q.currency, q.exponent);
  return (
    <dl className="amounts">
      <dt>{t("payment.amount")}</dt>
      <dd data-testid="amount">{money(q.amountMinor)}</dd>
      <dt>
        {t("payment.sst")} ({formatPercent(q.taxBp)})
      </dt>
      <dd data-testid="tax">{money(q.taxMinor)}</dd>
      <dt>{t("payment.total")}</dt>
      <dd data-testid="total">
        <strong>{money(q.totalMinor)}</strong>
      </dd>
    </dl>
  );
}
