import path from "node:path";
import { defineConfig } from "vitest/config";

/** The import aliases of tsconfig.json (the chaos tests' config uses them too). */
export const alias = {
  "~": path.resolve("app"),
  "@db": path.resolve("db"),
  "@plugins": path.resolve("plugins"),
  "@editions": path.resolve("editions"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["app/**/*.test.ts", "plugins/**/*.test.ts", "db/**/*.test.ts", "tests/unit/**/*.test.ts"],
    environment: "node",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // model tests share one process-wide database handle per file
    pool: "forks",
  },
});
