import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_SEED_PASSWORD, seedPassword } from "~/seed/seed";

const saved = { env: process.env.NODE_ENV, password: process.env.SEED_PASSWORD };
afterEach(() => {
  process.env.NODE_ENV = saved.env;
  if (saved.password === undefined) delete process.env.SEED_PASSWORD;
  else process.env.SEED_PASSWORD = saved.password;
});

describe("seed password", () => {
  it("defaults to the documented demo password outside production", () => {
    process.env.NODE_ENV = "development";
    delete process.env.SEED_PASSWORD;
    expect(seedPassword()).toBe(DEFAULT_SEED_PASSWORD);
  });
  it("refuses the default in production, and takes SEED_PASSWORD there", () => {
    process.env.NODE_ENV = "production";
    delete process.env.SEED_PASSWORD;
    expect(() => seedPassword()).toThrow(/SEED_PASSWORD/);
    process.env.SEED_PASSWORD = DEFAULT_SEED_PASSWORD;
    expect(() => seedPassword()).toThrow(/SEED_PASSWORD/);
    process.env.SEED_PASSWORD = "a-long-real-secret";
    expect(seedPassword()).toBe("a-long-real-secret");
  });
});
