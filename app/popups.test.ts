import { describe, expect, it } from "vitest";
import { popupFor } from "./popups";

describe("agent popups", () => {
  const agent = { type: "agent", popupOnCall: true };
  it.each([
    [agent, { channel: "CALL", severity: "" }, "call"],
    [{ ...agent, popupOnCall: false }, { channel: "CALL", severity: "" }, null],
    [{ ...agent, popupOnCall: false }, { channel: "CALL", severity: "H" }, "high"],
    [agent, { channel: "EMAIL", severity: "H" }, "high"],
    [agent, { channel: "EMAIL", severity: "M" }, null],
    [agent, { channel: "EMAIL", severity: "" }, null],
    [{ type: "admin", popupOnCall: true }, { channel: "CALL", severity: "H" }, null],
  ] as const)("%o and %o -> %s", (viewer, ticket, expected) => {
    expect(popupFor(viewer, ticket)).toBe(expected);
  });
});
