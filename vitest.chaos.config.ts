// The chaos tests (tests/chaos): the built server as real processes, one file at a time, after
// `npm run build` (npm test runs them between the build and the e2e suite).
import { defineConfig } from "vitest/config";
import { alias } from "./vitest.config";

export default defineConfig({
  resolve: { alias },
  test: {
    include: ["tests/chaos/**/*.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    fileParallelism: false,
  },
});
