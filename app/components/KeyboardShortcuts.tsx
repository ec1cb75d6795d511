// Runs the shell's keyboard shortcuts (keys in app/shortcuts.ts) and shows them on "?" in a modal
// <dialog>. JavaScript only, as keys are; the pages work the same without them.
import { useLocation, useNavigate, useRouteLoaderData } from "@remix-run/react";
import { Fragment, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { SHORTCUTS, isTyping, shortcutFor, type Pending, type ShortcutAction } from "~/shortcuts";
import { focusList } from "./list-focus";
import { useDialogFocus } from "./dialog-focus";

/** The shell's menu item a "go to" shortcut opens (its path follows the edition's menu). */
const GO_TO: Partial<Record<ShortcutAction, string>> = { tickets: "ticket" };

/** The element that declared itself the target of `action` (shortcutTarget in app/shortcuts.ts); a field first. */
function targetOf(action: string) {
  return (
    document.querySelector<HTMLElement>(`:is(input, textarea)[data-shortcut="${action}"]`) ?? document.querySelector<HTMLElement>(`[data-shortcut="${action}"]`)
  );
}

export function KeyboardShortcuts() {
  const navigate = useNavigate();
  const shell = useRouteLoaderData("shell") as { nav?: { id: string; path: string }[] } | undefined;
  const nav = shell?.nav;
  const [help, setHelp] = useState(false);
  // a "go to" shortcut lands focus in the page it opened: its list, else its main content
  const location = useLocation();
  const landing = useRef(false);
  useEffect(() => {
    if (!landing.current) return;
    landing.current = false;
    if (!focusList()) document.getElementById("detail")?.focus();
  }, [location.key]);
  useEffect(() => {
    let pending: Pending | null = null;
    const run = (action: ShortcutAction) => {
      const menuItem = GO_TO[action];
      if (menuItem) {
        const item = nav?.find((i) => i.id === menuItem);
        if (!item) return false;
        landing.current = true;
        navigate(item.path);
        return true;
      }
      if (action === "help") {
        setHelp(true);
        return true;
      }
      const target = targetOf(action);
      if (!target) return false;
      // a field takes focus; a launcher (the search dialog's link) is pressed
      if (target.matches("input, textarea")) target.focus();
      else target.click();
      return true;
    };
    const onKey = (e: KeyboardEvent) => {
      // a modal (a dialog, the image viewer) has the keys to itself
      if (e.defaultPrevented || isTyping(e.target) || document.querySelector("dialog:modal, [aria-modal=true]")) return;
      const found = shortcutFor(e, pending, Date.now());
      pending = found && "pending" in found ? found.pending : null;
      // the key itself must not land in the field it just focused
      if (found && "action" in found && run(found.action)) e.preventDefault();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [navigate, nav]);
  return help ? <ShortcutsHelp onClose={() => setHelp(false)} /> : null;
}

function ShortcutsHelp({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const dialog = useRef<HTMLDialogElement>(null);
  // a modal: focus moves in, stays inside, Escape closes it and focus goes back
  useDialogFocus(dialog, onClose);
  return (
    <dialog ref={dialog} className="modal shortcuts-help" aria-labelledby="shortcuts-title">
      <h2 id="shortcuts-title">{t("shortcuts.title")}</h2>
      <dl className="shortcut-list">
        {SHORTCUTS.map((s) => (
          <Fragment key={s.action}>
            <dt>
              {s.keys.map((k, i) => (
                <Fragment key={k}>
                  {i > 0 ? ` ${t("shortcuts.then")} ` : null}
                  <kbd>{k}</kbd>
                </Fragment>
              ))}
            </dt>
            <dd>{t(`shortcuts.${s.action}`)}</dd>
          </Fragment>
        ))}
      </dl>
      <p className="muted">{t("shortcuts.notWhileTyping")}</p>
      <button type="button" className="button" onClick={onClose} data-autofocus>
        {t("shortcuts.close")}
      </button>
    </dialog>
  );
}
