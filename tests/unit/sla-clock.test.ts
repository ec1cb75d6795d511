// The SLA engine's test clock (the browser tests move it through DATA_DIR/sla-test-clock while the
// server runs): read in NODE_ENV=test only; elsewhere the real clock, whatever the file says.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { slaNow, TEST_CLOCK_FILE } from "@plugins/sla/engine.server";

describe("the SLA test clock", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-sla-clock-"));
  afterEach(() => vi.unstubAllEnvs());

  it("moves the engine's now by the file's milliseconds in tests only", () => {
    vi.stubEnv("DATA_DIR", dir);
    vi.stubEnv("SLA_CLOCK_OFFSET_MS", "");
    const near = (expected: number) => expect(Math.abs(slaNow() - expected)).toBeLessThan(1000);
    near(Date.now());
    fs.writeFileSync(path.join(dir, TEST_CLOCK_FILE), String(6 * 60_000));
    vi.stubEnv("NODE_ENV", "test");
    near(Date.now() + 6 * 60_000);
    // back to the real clock when the file says 0, or says nothing sensible
    fs.writeFileSync(path.join(dir, TEST_CLOCK_FILE), "0");
    near(Date.now());
    fs.writeFileSync(path.join(dir, TEST_CLOCK_FILE), "soon");
    near(Date.now());
    // outside tests the file is never read
    fs.writeFileSync(path.join(dir, TEST_CLOCK_FILE), String(6 * 60_000));
    vi.stubEnv("NODE_ENV", "production");
    near(Date.now());
  });
});
