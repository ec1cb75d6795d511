import { describe, expect, it } from "vitest";
import { passwordProblem } from "./password-policy.server";

describe("password policy", () => {
  it("refuses short, long, common and name-based passwords with the reason", () => {
    expect(passwordProblem("short")).toBe("password.tooShort");
    expect(passwordProblem("x".repeat(129))).toBe("password.tooLong");
    expect(passwordProblem("password1234")).toBe("password.common");
    expect(passwordProblem("qwerty123456")).toBe("password.common");
    expect(passwordProblem("!!Sunshine2026!!")).toBe("password.common");
    expect(passwordProblem("aaaaaaaaaaaaaaaa")).toBe("password.common");
    expect(passwordProblem("aisha-secret-2026!", { username: "aisha" })).toBe("password.containsName");
  });
  it("accepts a long uncommon passphrase of any characters", () => {
    expect(passwordProblem("correct horse battery staple 日本")).toBeNull();
  });
});
