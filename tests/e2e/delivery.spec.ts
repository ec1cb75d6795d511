// Delivery states with JavaScript on and off: a reply that failed to go out shows the spec's
// 'Opps, message failed to send. The error is {server response}' and Retry (a plain form) puts it
// back in the queue. The failed reply is written straight into the e2e database (playwright.config.ts
// keeps its folder in E2E_DATA_DIR), on a ticket of its own, so seeded data stays as it is.
import path from "node:path";
import { randomInt } from "node:crypto";
import Database from "better-sqlite3";
import { test, expect } from "@playwright/test";
import { chooseLanguage, login } from "./helpers";

function openDb() {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) throw new Error("E2E_DATA_DIR is not set (playwright.config.ts sets it)");
  const db = new Database(path.join(dir, "omnidesk.sqlite"));
  db.pragma("busy_timeout = 5000");
  return db;
}

/** A mail ticket of its own, far above the numbers other tests create, so no one else takes it meanwhile. */
function emailTicket(db: Database.Database, channel: "EMAIL" | "GRAPH_EMAIL" = "EMAIL") {
  const now = Date.now();
  const number = 800_000 + randomInt(100_000);
  const ticket = db
    .prepare(
      "insert into tickets (ticket_number, title, channel, kind, contact_name, contact_email, created_at, updated_at) values (?, ?, ?, 'ticket', 'Mia Customer', 'mia@example.com', ?, ?)",
    )
    .run(number, `Refund ${number}`, channel, now, now).lastInsertRowid as number;
  return { ticket, number };
}

/** An EMAIL ticket whose admin reply failed for good, as the send job leaves it. */
function failedReply(reason: string) {
  const db = openDb();
  try {
    const now = Date.now();
    const admin = db.prepare("select id from users where username = 'admin'").get() as { id: number };
    const { ticket, number } = emailTicket(db);
    const message = db
      .prepare(
        "insert into messages (ticket_id, type, body, sender_user_id, delivery_state, delivery_error, created_at) values (?, 'text', 'Your refund is on its way.', ?, 'failed', ?, ?)",
      )
      .run(ticket, admin.id, reason, now).lastInsertRowid as number;
    db.prepare(
      "insert into jobs (kind, key, payload, state, attempts, run_at, last_error, created_at, finished_at) values (?, ?, ?, 'failed', 1, ?, ?, ?, ?)",
    ).run("conversation.send", `send:${message}`, JSON.stringify({ ticketId: ticket, messageIds: [message], to: [], cc: [] }), now, reason, now, now);
    return { number, message };
  } finally {
    db.close();
  }
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`delivery states with JavaScript ${javaScriptEnabled ? "on" : "off"}`, () => {
    test.use({ javaScriptEnabled });
    test.beforeEach(async ({ context, baseURL }) => chooseLanguage(context, baseURL!));

    test("shows the provider's reason and goes back in the queue on Retry", async ({ page }) => {
      const reason = "550 5.1.1 <mia@example.com>: Recipient address rejected";
      const { number, message } = failedReply(reason);
      await login(page, "admin", "admin");
      await page.goto(`/ticket/${number}`);
      const item = page.locator(`#m-${message}`);
      await expect(item.getByText(`Opps, message failed to send. The error is ${reason}`)).toBeVisible();
      await item.getByRole("button", { name: "Retry" }).click();
      // back in the queue, and then on its way (or waiting for a mail server): no longer failed
      await expect(item.locator("[data-delivery]")).not.toHaveAttribute("data-delivery", "failed");
      await expect(item.getByText("Opps, message failed to send.")).toHaveCount(0);
      await expect(item.getByRole("button", { name: "Retry" })).toHaveCount(0);
      await expect(item.getByText(/^(Queued|Sending…|Sent|Waiting to be sent: .+|Not sent yet, will try again\. .+)$/)).toBeVisible();
    });

    test("a reply waits in the outbox while its channel has no mail server configured", async ({ page }) => {
      const db = openDb();
      // the demo has an EMAIL mailbox and a relay, but no Microsoft 365 mailbox
      const { number } = emailTicket(db, "GRAPH_EMAIL");
      db.close();
      await login(page, "admin", "admin");
      await page.goto(`/ticket/${number}`);
      await page.getByLabel("Reply", { exact: true }).fill("We have sent your refund.");
      await page.getByRole("button", { name: "Send", exact: true }).click();
      const item = page.locator(".message", { hasText: "We have sent your refund." });
      await expect(item).toBeVisible();
      // with JavaScript the page follows by itself; without, a reload shows it
      const waiting = item.getByText("Waiting to be sent: No mail server is configured");
      if (javaScriptEnabled) await expect(waiting).toBeVisible();
      else
        await expect(async () => {
          await page.reload();
          await expect(waiting).toBeVisible({ timeout: 500 });
        }).toPass();
    });
  });
}
