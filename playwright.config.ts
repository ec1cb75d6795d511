// Browser tests on the system Chromium against a server started on a fresh temporary database.
import os from "node:os";
import path from "node:path";
import fs from "node:fs";
import { defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT || 3210);
/** The server's own SMTP listener, and the relay it sends mail through (tests/e2e/email.spec.ts runs it). */
export const E2E_SMTP_PORT = PORT + 1;
export const E2E_RELAY_PORT = PORT + 2;
/** Kamailio's WebSocket port for tests/e2e/calls.spec.ts (which starts Kamailio itself). */
export const E2E_SIP_WS_PORT = PORT + 3;
/** rtpengine's ng port (UDP) for tests/e2e/supervision.spec.ts: the server asks it for listen-ins. */
export const E2E_RTPENGINE_NG_PORT = PORT + 5;
/** Janus's HTTP API for tests/e2e/meeting.spec.ts (which starts Janus itself, after its mesh test). */
export const E2E_JANUS_HTTP_PORT = PORT + 7;
/** The server's voicemail (UDP SIP) that tests/e2e/call-dids.spec.ts's Kamailio sends unanswered DID calls to. */
export const E2E_VOICEMAIL_SIP_PORT = PORT + 9;
export const E2E_METRICS_TOKEN = "e2e-metrics-token";
// kept in the environment so test workers (which load this file again) find the server's database
const dataDir = (process.env.E2E_DATA_DIR ||= fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-e2e-")));

/**
 * The agent's flows that also run at a phone's size (390x844), JS on and off as each spec does:
 * the list, a conversation (reply, file, status, labels, priority), back to the list, search,
 * notifications, a visitor's new ticket reaching the list, the labels admin, and the phone spec.
 */
const PHONE_FLOWS = /\/(tickets|ticket-index|new-ticket|labels|search|notifications|phone)\.spec\.ts$/;

export default defineConfig({
  testDir: "tests/e2e",
  // each shard of `npm run test:e2e` (tests/support/e2e-shards.ts) has its own: playwright empties it
  outputDir: process.env.E2E_OUTPUT_DIR || "test-results",
  timeout: 30_000,
  expect: { timeout: 7_000 },
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: process.env.CI ? [["list"]] : [["list"]],
  use: {
    baseURL: `http://localhost:${PORT}`,
    // a trace of every test costs about a quarter of the suite's time (labels.spec: 2.3 min with,
    // 1.7 without); on CI only a failed test's retry records one
    trace: process.env.CI ? "on-first-retry" : "retain-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
    },
  },
  projects: [
    { name: "desktop", testIgnore: /\/phone\.spec\.ts$/ },
    { name: "phone", testMatch: PHONE_FLOWS, use: { viewport: { width: 390, height: 844 }, hasTouch: true } },
  ],
  webServer: {
    command: "node build/server.js",
    url: `http://localhost:${PORT}/healthz`,
    reuseExistingServer: false,
    timeout: 120_000,
    env: {
      PORT: String(PORT),
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      SESSION_SECRET: "e2e-secret",
      // the login errors are exercised many times from one address; the limit itself has a unit test
      LOGIN_FAILURES_ALLOWED: "1000",
      // every visitor of the browser tests comes from one address
      NEW_TICKETS_PER_VISITOR: "1000",
      LIVECHATS_PER_VISITOR: "1000",
      NODE_ENV: "test",
      SMTP_LISTEN_PORT: String(E2E_SMTP_PORT),
      SIP_WS_PORT: String(E2E_SIP_WS_PORT),
      RTPENGINE_NG: `127.0.0.1:${E2E_RTPENGINE_NG_PORT}`,
      VOICEMAIL_SIP_PORT: String(E2E_VOICEMAIL_SIP_PORT),
      JANUS_URL: `http://127.0.0.1:${E2E_JANUS_HTTP_PORT}/janus`,
      SMTP_RELAY_URL: `smtp://127.0.0.1:${E2E_RELAY_PORT}`,
      // tests/e2e/metrics.spec.ts scrapes /metrics with it
      METRICS_TOKEN: E2E_METRICS_TOKEN,
    },
  },
});
