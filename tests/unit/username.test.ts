// The username and email rules every account form shares (app/accounts/username.ts), and their
// uniqueness checks against the database (username.server.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emailProblem, emailSchema, normalizeEmail, optionalEmailSchema, sameUsername, usernameProblem, usernameSchema } from "~/accounts/username";
import { emailTaken, usernameTaken } from "~/accounts/username.server";
import { createTestDb, type TestDb } from "./harness";

describe("username rules", () => {
  it("takes 3 to 32 letters, digits, dots, dashes and underscores", () => {
    for (const ok of ["bob", "a.b-c_d", "Agent007", "x".repeat(32)]) expect(usernameProblem(ok)).toBeNull();
    expect(usernameProblem("ab")).toBe("setup.rules.usernameLength");
    expect(usernameProblem("x".repeat(33))).toBe("setup.rules.usernameLength");
    expect(usernameProblem("x".repeat(500))).toBe("setup.rules.usernameLength");
  });
  it("refuses spaces and other characters, but forgives spaces around the name", () => {
    for (const bad of ["john smith", "tab\there", "a@b", "名前です", "émile", "x/y"]) expect(usernameProblem(bad)).toBe("setup.rules.usernameChars");
    expect(usernameSchema.parse("  bob  ")).toBe("bob");
  });
  it("compares without case", () => {
    expect(sameUsername("Admin", "admin ")).toBe(true);
    expect(sameUsername("admin", "admin2")).toBe(false);
  });
  it("the schema reports the rule with its limits", () => {
    const result = usernameSchema.safeParse("a b");
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ message: "setup.rules.usernameChars", params: { usernameMin: "3", usernameMax: "32" } });
  });
});

describe("email rules", () => {
  it("keeps addresses lower-cased and trimmed", () => {
    expect(normalizeEmail("  Ann@Example.COM ")).toBe("ann@example.com");
    expect(emailSchema.parse("Ann@Example.COM")).toBe("ann@example.com");
  });
  it("takes a basic address shape only", () => {
    expect(emailProblem("ann@example.com")).toBeNull();
    expect(emailProblem("")).toBe("setup.rules.emailRequired");
    for (const bad of ["ann", "ann@", "@example.com", "ann@example", "ann @example.com", "a@b@example.com", `${"a".repeat(250)}@example.com`])
      expect(emailProblem(bad)).toBe("setup.rules.emailInvalid");
  });
  it("an optional email may stay empty but not be wrong", () => {
    expect(optionalEmailSchema.parse("  ")).toBe("");
    expect(optionalEmailSchema.safeParse("nope").success).toBe(false);
  });
});

describe("uniqueness", () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDb("sqlite");
    await db.handle.db.insert(db.handle.schema.users).values([
      { username: "Alice", name: "Alice", type: "admin", passwordHash: "!", email: "alice@example.com", createdAt: 1 },
      { username: "bob", name: "Bob", type: "agent", passwordHash: "!", createdAt: 1 },
    ]);
  });
  afterAll(() => db.cleanup());

  it("a username is taken in any case, except by the account itself", async () => {
    expect(await usernameTaken("alice")).toBe(true);
    expect(await usernameTaken(" ALICE ")).toBe(true);
    expect(await usernameTaken("alice2")).toBe(false);
    expect(await usernameTaken("alice", { exceptId: 1 })).toBe(false);
  });
  it("an email is taken in any case; no email is never taken", async () => {
    expect(await emailTaken("Alice@Example.com")).toBe(true);
    expect(await emailTaken("alice@example.com", { exceptId: 1 })).toBe(false);
    expect(await emailTaken("")).toBe(false);
  });
});
