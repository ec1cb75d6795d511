// Keyboard rules every modal of the shell shares: focus moves into it, Tab stays inside (a native
// modal <dialog> alone would let it out to the browser's own controls), Escape closes, and focus
// returns to where it was when the modal closes. And the top bar's <details>
// menus: Escape closes them too.
import { useEffect, type KeyboardEvent as ReactKeyboardEvent, type RefObject } from "react";

/** A <details> menu's onKeyDown: Escape, anywhere inside the open menu, closes it and puts focus back on its summary. */
export function closeMenuOnEscape(e: ReactKeyboardEvent<HTMLDetailsElement>) {
  const menu = e.currentTarget;
  // a dialog opened from the menu (a profile card) is portaled out of it, but React still bubbles
  // its keys here: its Escape is its own (preventing it would keep the dialog open)
  if (e.key !== "Escape" || !menu.open || !menu.contains(e.target as Node)) return;
  e.preventDefault();
  e.stopPropagation();
  menu.open = false;
  menu.querySelector("summary")?.focus();
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function useDialogFocus(ref: RefObject<HTMLElement>, onEscape: () => void) {
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    // a native <dialog> is shown as a modal (the page behind it inert), also one rendered open for pages without JavaScript
    if (dialog instanceof HTMLDialogElement && !dialog.matches(":modal")) {
      if (dialog.open) dialog.close();
      dialog.showModal();
    }
    (dialog.querySelector<HTMLElement>("[data-autofocus]") ?? dialog.querySelector<HTMLElement>(FOCUSABLE) ?? dialog).focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.preventDefault();
        onEscape();
        return;
      }
      if (e.key !== "Tab") return;
      const items = [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)];
      if (!items.length) return e.preventDefault();
      const first = items[0];
      const last = items[items.length - 1];
      if (e.shiftKey && (document.activeElement === first || !dialog.contains(document.activeElement))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (document.activeElement === last || !dialog.contains(document.activeElement))) {
        e.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      if (before?.isConnected) before.focus();
    };
    // onEscape may be a new function each render; the dialog's lifetime is what matters
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ref]);
}
