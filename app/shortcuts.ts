// The shell's keyboard shortcuts, listed on "?" (app/components/KeyboardShortcuts.tsx runs them):
// single keys without modifiers, or "g" then a letter. As with the debug shortcuts
// (app/debug-shortcuts.ts), letters are read from event.code, so they work in every keyboard
// layout and input language; "/" and "?" are read as the characters typed, wherever a layout puts
// them. None fires while typing in a field, nor with Ctrl, Alt or Meta held (the browser's,
// the screen reader's and the debug shortcuts' keys).

export const SHORTCUTS = [
  { keys: ["g", "t"], action: "tickets" },
  { keys: ["r"], action: "reply" },
  { keys: ["/"], action: "search" },
  { keys: ["?"], action: "help" },
] as const;

export type ShortcutAction = (typeof SHORTCUTS)[number]["action"];

/** How long "g" waits for its second key. */
export const SEQUENCE_MS = 1500;

export interface KeyPress {
  code: string;
  key: string;
  altKey: boolean;
  shiftKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  isComposing?: boolean;
}

/** A first key waiting for its second one, and when it was pressed. */
export interface Pending {
  key: string;
  at: number;
}

/** The key as shortcuts name it: a letter from its code ("KeyG" -> "g"), "/" or "?"; null for any other press. */
export function keyOf(e: KeyPress): string | null {
  if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return null;
  if (/^Key[A-Z]$/.test(e.code)) return e.shiftKey ? null : e.code.slice(3).toLowerCase();
  return e.key === "/" || e.key === "?" ? e.key : null;
}

/**
 * What a key press does, given the first key of a sequence still waiting (or null): the action it
 * completes, a new pending first key, or nothing.
 */
export function shortcutFor(e: KeyPress, pending: Pending | null, now: number): { action: ShortcutAction } | { pending: Pending } | null {
  const key = keyOf(e);
  if (key === null) return null;
  const first = pending && now - pending.at <= SEQUENCE_MS ? pending.key : null;
  if (first !== null) {
    const done = SHORTCUTS.find((s) => s.keys.length === 2 && s.keys[0] === first && s.keys[1] === key);
    if (done) return { action: done.action };
  }
  const single = SHORTCUTS.find((s) => s.keys.length === 1 && s.keys[0] === key);
  if (single) return { action: single.action };
  return SHORTCUTS.some((s) => s.keys.length === 2 && s.keys[0] === key) ? { pending: { key, at: now } } : null;
}

/** True when a key press goes into something the user types in (a field, an editable region): no shortcut then. */
export function isTyping(target: unknown): boolean {
  const el = target as { tagName?: string; isContentEditable?: boolean } | null;
  return !!el && (["INPUT", "TEXTAREA", "SELECT"].includes(String(el.tagName).toUpperCase()) || el.isContentEditable === true);
}

/** What the target elements carry: data-shortcut="<action>" for the runner, aria-keyshortcuts for screen readers. */
export function shortcutTarget(action: "reply" | "search") {
  return { "data-shortcut": action, "aria-keyshortcuts": SHORTCUTS.find((s) => s.action === action)!.keys[0] };
}
