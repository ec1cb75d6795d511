// /call_verification ('scam call', issues 18 and 21) on the call edition's host (call.localhost),
// with JavaScript on and off. The workspace is client 2 (spec section 6: the page is for admins of
// client 2 on the call edition). A call recorded and transcribed before the scam check existed is
// made as Kamailio would make it (its events through the SIP event hook, the calls plugin's own
// path), with its recording and transcript stored the way the transcription job stores them, and
// never announced to the check. The admin follows the 'scam call' menu item, presses "Check
// earlier calls", finds the call flagged with the hints saying why, filters by date and hint kind
// (a kind it does not carry leaves it out) and opens the call; axe finds nothing on the page. An agent sees no 'scam call' item
// and is refused the page with 'Access denied'.
import path from "node:path";
import Database from "better-sqlite3";
import { test, expect, type Page } from "@playwright/test";
import { axeViolations } from "./axe";
import { sipHookSecret } from "../../plugins/calls/sip/hook-secret";
import { chooseLanguage, login, originFor } from "./helpers";

const HOST = "call.localhost";
/** The workspace's time zone (the seed's, Asia/Kuala_Lumpur): the day the call was made there. */
const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Kuala_Lumpur" }).format(new Date());

function database() {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) throw new Error("E2E_DATA_DIR is not set (playwright.config.ts sets it)");
  const db = new Database(path.join(dir, "omnidesk.sqlite"));
  db.pragma("busy_timeout = 5000");
  return db;
}

function withDb<T>(fn: (db: Database.Database) => T): T {
  const db = database();
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/**
 * An answered call from `from`, ended, recorded and transcribed (what the caller said: `said`),
 * as one made before the scam check existed: answers its ticket number.
 */
async function earlierCall(baseURL: string, from: string, said: string[]) {
  const sipCallId = `verify-e2e-${from}-${Date.now()}@omnidesk`;
  const hook = `${baseURL.replace("localhost", "127.0.0.1")}/hooks/sip/event`;
  const events: Record<string, string>[] = [
    { event: "invite", call_id: sipCallId, from, to: "+60322223333" },
    { event: "answer", call_id: sipCallId },
    { event: "end", call_id: sipCallId, code: "200", by: from },
  ];
  for (const event of events) {
    const res = await fetch(hook, {
      method: "POST",
      headers: { "X-Sip-Hook-Secret": sipHookSecret({ SESSION_SECRET: "e2e-secret" }), "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(event),
    });
    expect(res.status, `${event.event}: ${await res.text()}`).toBe(200);
  }
  return withDb((db) => {
    const call = db.prepare("SELECT c.id, t.ticket_number AS n FROM calls c JOIN tickets t ON t.id = c.ticket_id WHERE c.sip_call_id = ?").get(sipCallId) as {
      id: number;
      n: number;
    };
    const admin = db.prepare("SELECT id FROM users WHERE username = 'admin'").get() as { id: number };
    db.prepare("UPDATE calls SET recording_key = ?, recording_type = 'audio/ogg', agent_user_id = ? WHERE id = ?").run(
      `calls/${call.id}.ogg`,
      admin.id,
      call.id,
    );
    const add = db.prepare("INSERT INTO call_transcripts (call_id, source, transcription, offset_ms, created_at) VALUES (?, ?, ?, ?, ?)");
    add.run(call.id, "agent", "good morning how can i help you", 0, Date.now());
    said.forEach((text, i) => add.run(call.id, "other", text, 1000 + i * 1000, Date.now()));
    return call.n;
  });
}

let clientBefore: string | undefined;
test.beforeAll(() => {
  withDb((db) => {
    clientBefore = (db.prepare("SELECT value FROM settings WHERE key = 'client_id'").get() as { value: string } | undefined)?.value;
    db.prepare("INSERT INTO settings (key, value) VALUES ('client_id', '2') ON CONFLICT (key) DO UPDATE SET value = '2'").run();
  });
});
test.afterAll(() => {
  withDb((db) => {
    if (clientBefore === undefined) db.prepare("DELETE FROM settings WHERE key = 'client_id'").run();
    else db.prepare("UPDATE settings SET value = ? WHERE key = 'client_id'").run(clientBefore);
  });
});

const scamItem = (page: Page) => page.locator('.left-nav nav a[data-menu-item="call_verification"]');

for (const javaScriptEnabled of [true, false]) {
  test.describe(`scam call list with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });

    test("an admin checks earlier calls, finds the flagged one, filters it and opens it", async ({ page, context, baseURL }) => {
      // the first test after the server starts also waits for its first answers (tens of seconds on a busy machine)
      test.setTimeout(180_000);
      const origin = originFor(baseURL!, HOST);
      const from = `+6013${javaScriptEnabled ? "8" : "7"}${String(Date.now()).slice(-6)}`;
      const ticketNumber = await earlierCall(baseURL!, from, [
        "this is your bank your account will be suspended today",
        "pay the release fee with a google play card now",
      ]);

      await chooseLanguage(context, baseURL!, "en", HOST);
      await login(page, "admin", "admin", undefined, origin);
      await expect(scamItem(page)).toHaveText("scam call");
      await scamItem(page).click();
      await expect(page).toHaveURL(`${origin}/call_verification`);
      await expect(page.getByRole("heading", { level: 1, name: "scam call" })).toBeVisible();
      // never announced to the check: not listed yet
      const row = page.getByTestId(`flagged-${ticketNumber}`);
      await expect(row).toHaveCount(0);

      await page.getByRole("button", { name: "Check earlier calls" }).click();
      await expect(page.getByTestId("backfill-notice")).toHaveText(/^1 earlier call is being checked|^\d+ earlier calls are being checked/);
      await expect(async () => {
        await page.goto(`${origin}/call_verification`);
        await expect(row).toBeVisible({ timeout: 1_000 });
      }).toPass({ timeout: 30_000 });
      await expect(row).toContainText(from);
      await expect(row).toContainText("Demo Admin");
      await expect(row.locator('li[data-kind="pressure"]')).toContainText("will be suspended");
      await expect(row.locator('li[data-kind="payment"]')).toContainText(/google play card|release fee/);
      // axe runs as a script in the page: with JavaScript on only (the markup is the same)
      if (javaScriptEnabled) {
        expect(await axeViolations(page)).toEqual([]);
      }

      // the GET filter: today and its kind keep it, a kind it does not carry leaves it out
      const filter = page.getByRole("form", { name: "Call filters" });
      await filter.getByLabel("From date").fill(today());
      await filter.getByLabel("Hint").selectOption({ label: "Unusual payment or secret asked for" });
      await filter.getByRole("button", { name: "Filter" }).click();
      await expect(page).toHaveURL(/kind=payment/);
      await expect(row).toBeVisible();
      await expect(filter.getByLabel("From date")).toHaveValue(today());
      await filter.getByLabel("Hint").selectOption({ label: "Look-alike link" });
      await filter.getByRole("button", { name: "Filter" }).click();
      await expect(page).toHaveURL(/kind=lookalike/);
      await expect(page.getByTestId("verification-empty")).toHaveText("No flagged call matches this filter.");
      await filter.getByLabel("Hint").selectOption({ label: "Pressure to act fast" });
      await filter.getByRole("button", { name: "Filter" }).click();

      // open it: the call's own page
      await row.getByRole("link", { name: `#${ticketNumber}` }).click();
      await expect(page).toHaveURL(`${origin}/call/${ticketNumber}`);
      await expect(page.getByText(from).first()).toBeVisible();
    });

    test("an agent has no 'scam call' item and is refused the page", async ({ page, context, baseURL }) => {
      const origin = originFor(baseURL!, HOST);
      await chooseLanguage(context, baseURL!, "en", HOST);
      await login(page, "agent", "agent", undefined, origin);
      await expect(page.locator(".left-nav nav a").first()).toBeVisible();
      await expect(scamItem(page)).toHaveCount(0);
      const res = await page.goto(`${origin}/call_verification`);
      expect(res?.status()).toBe(403);
      const denied = page.getByRole("alert");
      await expect(denied.getByRole("heading", { name: "Access denied" })).toBeVisible();
      await expect(denied).toContainText("Only administrators can open the scam call list");
      await expect(page.getByTestId("verification-empty")).toHaveCount(0);
      // the other call pages for a few refuse the same way, each with its reason
      for (const [path, reason] of [
        ["/voicemail", "agents with the voicemail permission"],
        ["/supervisory", "agents with the report permission"],
      ]) {
        expect((await page.goto(`${origin}${path}`))?.status(), path).toBe(403);
        await expect(page.getByRole("alert")).toContainText(reason);
      }
    });
  });
}
