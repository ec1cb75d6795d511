import { afterEach, describe, expect, it } from "vitest";
import { seal, unseal } from "./secrets.server";

const original = process.env.SESSION_SECRET;
afterEach(() => {
  process.env.SESSION_SECRET = original;
});

describe("sealed secrets", () => {
  it("open to what was sealed, and the stored form does not show it", () => {
    process.env.SESSION_SECRET = "one";
    const stored = seal("JBSWY3DPEHPK3PXP");
    expect(stored).not.toContain("JBSWY3DPEHPK3PXP");
    expect(seal("JBSWY3DPEHPK3PXP")).not.toBe(stored); // a fresh nonce each time
    expect(unseal(stored)).toBe("JBSWY3DPEHPK3PXP");
  });
  it("do not open under another SESSION_SECRET, nor when tampered with", () => {
    process.env.SESSION_SECRET = "one";
    const stored = seal("client-secret");
    // one character of the sealed body changed (a base64url character inside, so whole bits change)
    const i = stored.length - 5;
    const tampered = stored.slice(0, i) + (stored[i] === "A" ? "B" : "A") + stored.slice(i + 1);
    expect(tampered).not.toBe(stored);
    expect(unseal(tampered)).toBeNull();
    process.env.SESSION_SECRET = "two";
    expect(unseal(stored)).toBeNull();
  });
  it("leave empty and legacy plain values as they are", () => {
    expect(seal("")).toBe("");
    expect(unseal("")).toBe("");
    expect(unseal(null)).toBeNull();
    expect(unseal("PLAINBASE32SECRET")).toBe("PLAINBASE32SECRET");
  });
});
