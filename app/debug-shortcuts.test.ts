import { describe, expect, it } from "vitest";
import { debugActionFor, shortcutLabel } from "./debug-shortcuts";

const press = (code: string, mods: Partial<Record<"altKey" | "shiftKey" | "ctrlKey" | "metaKey", boolean>>) => ({
  code,
  altKey: false,
  shiftKey: false,
  ctrlKey: false,
  metaKey: false,
  ...mods,
});

describe("debug shortcuts", () => {
  it("alt+shift+letter names each action", () => {
    const both = { altKey: true, shiftKey: true };
    expect(["KeyS", "KeyE", "KeyT", "KeyC", "KeyV", "KeyD", "KeyN"].map((c) => debugActionFor(press(c, both)))).toEqual([
      "socket",
      "errors",
      "testSend",
      "crash",
      "variables",
      "socketIoDebug",
      "testNotification",
    ]);
    expect(shortcutLabel("KeyS")).toBe("Alt+Shift+S");
  });

  it("leaves every other combination alone (typing, the browser's and screen readers' keys)", () => {
    expect(debugActionFor(press("KeyS", { altKey: true }))).toBeNull();
    expect(debugActionFor(press("KeyS", { shiftKey: true }))).toBeNull();
    expect(debugActionFor(press("KeyS", { altKey: true, shiftKey: true, ctrlKey: true }))).toBeNull();
    expect(debugActionFor(press("KeyS", { altKey: true, shiftKey: true, metaKey: true }))).toBeNull();
    expect(debugActionFor(press("KeyQ", { altKey: true, shiftKey: true }))).toBeNull();
  });
});
