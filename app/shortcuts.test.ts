import { describe, expect, it } from "vitest";
import { SEQUENCE_MS, isTyping, keyOf, shortcutFor, shortcutTarget, type KeyPress } from "./shortcuts";
import { debugActionFor } from "./debug-shortcuts";

const press = (code: string, key: string, mods: Partial<KeyPress> = {}): KeyPress => ({
  code,
  key,
  altKey: false,
  shiftKey: false,
  ctrlKey: false,
  metaKey: false,
  ...mods,
});

describe("keyboard shortcuts", () => {
  it("r, / and ? act at once", () => {
    expect(shortcutFor(press("KeyR", "r"), null, 0)).toEqual({ action: "reply" });
    expect(shortcutFor(press("Slash", "/"), null, 0)).toEqual({ action: "search" });
    expect(shortcutFor(press("Slash", "?", { shiftKey: true }), null, 0)).toEqual({ action: "help" });
  });

  it("g waits for its second key: g t opens the tickets, within the time allowed", () => {
    const first = shortcutFor(press("KeyG", "g"), null, 1000);
    expect(first).toEqual({ pending: { key: "g", at: 1000 } });
    const pending = (first as { pending: { key: string; at: number } }).pending;
    expect(shortcutFor(press("KeyT", "t"), pending, 1000 + SEQUENCE_MS)).toEqual({ action: "tickets" });
    // too late: t alone is nothing
    expect(shortcutFor(press("KeyT", "t"), pending, 1001 + SEQUENCE_MS)).toBeNull();
    // g then r: r still replies
    expect(shortcutFor(press("KeyR", "r"), pending, 1100)).toEqual({ action: "reply" });
  });

  it("letters are read from the key's place, so they work in every layout and input language", () => {
    // a Korean layout types ㄱ on the G key, a Russian one п
    expect(keyOf(press("KeyG", "ㄱ"))).toBe("g");
    expect(keyOf(press("KeyR", "к"))).toBe("r");
  });

  it("leaves modified keys to the browser, screen readers and the debug shortcuts", () => {
    for (const mods of [{ ctrlKey: true }, { metaKey: true }, { altKey: true }, { altKey: true, shiftKey: true }, { shiftKey: true }])
      expect(shortcutFor(press("KeyR", "r", mods), null, 0), JSON.stringify(mods)).toBeNull();
    // the debug shortcuts' alt+shift+T is not "t"
    expect(debugActionFor(press("KeyT", "T", { altKey: true, shiftKey: true }))).toBe("testSend");
    expect(keyOf(press("KeyT", "T", { altKey: true, shiftKey: true }))).toBeNull();
    // nor while an input method composes a character
    expect(keyOf(press("KeyR", "Process", { isComposing: true }))).toBeNull();
  });

  it("is not active while typing in a field", () => {
    for (const tagName of ["INPUT", "TEXTAREA", "SELECT"]) expect(isTyping({ tagName })).toBe(true);
    expect(isTyping({ tagName: "DIV", isContentEditable: true })).toBe(true);
    expect(isTyping({ tagName: "A", isContentEditable: false })).toBe(false);
    expect(isTyping(null)).toBe(false);
  });

  it("targets declare themselves, and name their key for screen readers", () => {
    expect(shortcutTarget("reply")).toEqual({ "data-shortcut": "reply", "aria-keyshortcuts": "r" });
    expect(shortcutTarget("search")).toEqual({ "data-shortcut": "search", "aria-keyshortcuts": "/" });
  });
});
