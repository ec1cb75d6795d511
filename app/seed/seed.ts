// The demo workspace. Deterministic: the same PRNG seed and the same day give the same data.
import { sql } from "drizzle-orm";
import type { DbHandle } from "../../db/client";
import { hashPassword } from "~/accounts/password.server";
import { log } from "~/ops/log.server";
import { CHANNELS as ALL_CHANNELS, kindOf } from "~/conversation/channels";
import { seedForms } from "~/seed/seed-forms";

/** The demo's channels: spec section 1's (SMS came later; the demo keeps each ticket on the channel it always had). */
export const CHANNELS = ALL_CHANNELS.filter((c) => c !== "SMS");

export const DEFAULT_SEED_PASSWORD = "demo1234";
/** The public pages' token of the demo workspace only; a real workspace gets random ones (accounts/setup.server.ts). */
export const DEMO_TOKEN = "demo";

/**
 * Whether an empty database gets the demo workspace at server start: always for the local demo
 * and the tests, in production only when asked for (SEED_DEMO=1); else the first run is /setup.
 */
export function shouldSeedDemo(env: Record<string, string | undefined> = process.env) {
  return env.NODE_ENV !== "production" || env.SEED_DEMO === "1";
}

export function seedPassword() {
  const password = process.env.SEED_PASSWORD || DEFAULT_SEED_PASSWORD;
  if (process.env.NODE_ENV === "production" && password === DEFAULT_SEED_PASSWORD)
    throw new Error("Refusing to seed the default demo password in production: set SEED_PASSWORD.");
  return password;
}

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  "Aisha",
  "Ben",
  "Chen",
  "Daniel",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jun",
  "Kavya",
  "Liam",
  "Mei",
  "Nur",
  "Omar",
  "Priya",
  "Raj",
  "Sara",
  "Tan",
  "Wei",
];
const LAST = [
  "Abdullah",
  "Brown",
  "Chong",
  "Das",
  "Evans",
  "Fernandez",
  "Goh",
  "Hassan",
  "Ito",
  "Kim",
  "Lee",
  "Lim",
  "Müller",
  "Ng",
  "Park",
  "Rahman",
  "Singh",
  "Tan",
  "Wong",
  "Yamamoto",
];
const TOPICS = [
  "Refund for order",
  "Cannot log in",
  "Delivery delayed",
  "Change billing address",
  "Upgrade my plan",
  "Invoice copy needed",
  "Product stopped working",
  "Warranty claim",
  "Question about pricing",
  "Cancel subscription",
  "Wrong item received",
  "Password reset not arriving",
];
const CUSTOMER_LINES = [
  "Hi, I need help with this please.",
  "It has been three days and nothing has changed.",
  "Can you check my account?",
  "Thanks, that worked!",
  "Still not fixed, sorry.",
  "Could you send me the invoice again?",
  "Please call me back when you can.",
];
const AGENT_LINES = [
  "Thanks for reaching out, I'm looking into it now.",
  "Could you share your order number?",
  "I've escalated this to our billing team.",
  "This should be fixed now. Could you try again?",
  "I've sent the document to your email.",
  "Happy to help. Anything else?",
];
const EMOTIONS = ["", "anger", "fear", "happy", "love", "sad", "surprise"];
const SEVERITIES = ["", "", "H", "M", "M", "L"];

export const DEMO_LABELS = [
  { name: "Urgent", color: "#d32f2f", colorDark: "#ef9a9a", level: 3, sla: 15 },
  { name: "VIP", color: "#7b1fa2", colorDark: "#ce93d8", level: 2, sla: 30 },
  { name: "Complaint", color: "#f57c00", colorDark: "#ffcc80", level: 2, sla: 60 },
  { name: "Refund", color: "#1976d2", colorDark: "#90caf9", level: 1, sla: 120 },
  { name: "Feedback", color: "#388e3c", colorDark: "#a5d6a7", level: 1, sla: 240 },
  { name: "Spam", color: "#616161", colorDark: "#bdbdbd", level: 0, sla: 1440 },
];

/** The demo workspace's email channel. */
export const DEMO_MAILBOX = "support@omnidesk.localhost";

export async function isEmpty(handle: DbHandle) {
  const rows = await handle.db.select({ id: handle.schema.users.id }).from(handle.schema.users).limit(1);
  return rows.length === 0;
}

export async function seedIfEmpty(handle: DbHandle) {
  if (!shouldSeedDemo() || !(await isEmpty(handle))) return false;
  await seedDemo(handle, { tickets: 2000 });
  log.info("Seeded the demo workspace (admin / agent / agent2).");
  return true;
}

/** Workspace, users, departments, labels, tokens and `tickets` demo tickets. */
export async function seedDemo(handle: DbHandle, opts: { tickets: number; now?: number; log?: (m: string) => void }) {
  const { db, schema } = handle;
  const password = seedPassword();
  const now = opts.now ?? Date.now();
  const [adminHash, agentHash, agent2Hash] = await Promise.all([hashPassword(password), hashPassword(password), hashPassword(password)]);
  await handle.transaction(async (tx) => {
    await tx.insert(schema.departments).values([
      { id: 1, name: "Sales" },
      { id: 2, name: "Support" },
      { id: 3, name: "Billing" },
    ]);
    await tx.insert(schema.users).values([
      { id: 1, username: "admin", name: "Demo Admin", type: "admin", passwordHash: adminHash, departmentId: null, createdAt: now },
      { id: 2, username: "agent", name: "Alya Agent", type: "agent", passwordHash: agentHash, departmentId: 2, permissions: "[]", createdAt: now },
      {
        id: 3,
        username: "agent2",
        name: "Brian Agent",
        type: "agent",
        passwordHash: agent2Hash,
        departmentId: 1,
        permissions: '["view_report"]',
        createdAt: now,
      },
    ]);
    await tx.insert(schema.labels).values(DEMO_LABELS.map((l, i) => ({ id: i + 1, ...l })));
    await tx.insert(schema.settings).values([
      { key: "admin_name", value: "Demo Admin" },
      { key: "admin_username", value: "admin" },
      { key: "plan", value: "3" },
      { key: "account_type", value: "1" },
    ]);
    await tx.insert(schema.publicTokens).values(["livechat", "survey", "new_ticket"].map((kind) => ({ kind, token: DEMO_TOKEN, createdAt: now })));
    // receives on the built-in SMTP listener (`swaks --to support@omnidesk.localhost --server 127.0.0.1:2525`)
    await tx.insert(schema.channelAccounts).values({
      kind: "EMAIL",
      name: "Support",
      address: DEMO_MAILBOX,
      departmentId: 2,
      enabled: true,
      createdAt: now,
      updatedAt: now,
    });
  });
  await seedForms(handle, { token: DEMO_TOKEN, now });
  if (handle.dialect === "pg") {
    for (const table of ["departments", "users", "labels"])
      await handle.raw(sql.raw(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT max(id) FROM ${table}))`));
  }
  await seedTickets(handle, { count: opts.tickets, now, log: opts.log });
}

/**
 * Appends `count` tickets (with messages, labels and participants) spread over the 90 days before
 * `now`, in batches inside transactions: a million takes minutes (see bench/ and README).
 */
export async function seedTickets(handle: DbHandle, opts: { count: number; now: number; seed?: number; log?: (m: string) => void }) {
  const { db, schema } = handle;
  const rand = prng(opts.seed ?? 20261121);
  const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)];
  const [{ maxTicket }] = await db.select({ maxTicket: sql<number>`coalesce(max(${schema.tickets.id}), 0)` }).from(schema.tickets);
  const [{ maxMessage }] = await db.select({ maxMessage: sql<number>`coalesce(max(${schema.messages.id}), 0)` }).from(schema.messages);
  let ticketId = Number(maxTicket);
  let messageId = Number(maxMessage);
  const span = 90 * 24 * 60 * 60 * 1000;
  const staff = [1, 2, 3];
  const BATCH = 500;

  for (let done = 0; done < opts.count;) {
    const size = Math.min(BATCH, opts.count - done);
    const tickets: (typeof schema.tickets.$inferInsert)[] = [];
    const messages: (typeof schema.messages.$inferInsert)[] = [];
    const ticketLabels: (typeof schema.ticketLabels.$inferInsert)[] = [];
    const participants: (typeof schema.participants.$inferInsert)[] = [];
    for (let i = 0; i < size; i++) {
      const id = ++ticketId;
      const createdAt = Math.floor(opts.now - rand() * span);
      const contact = `${pick(FIRST)} ${pick(LAST)}`;
      const messageCount = 1 + Math.floor(rand() * 5);
      let at = createdAt;
      let last = "";
      for (let m = 0; m < messageCount; m++) {
        at = Math.min(opts.now, at + Math.floor(rand() * 6 * 60 * 60 * 1000));
        const fromAgent = m % 2 === 1;
        last = fromAgent ? pick(AGENT_LINES) : pick(CUSTOMER_LINES);
        messages.push({
          id: ++messageId,
          ticketId: id,
          type: "text",
          body: last,
          senderUserId: fromAgent ? pick(staff) : null,
          senderName: fromAgent ? "" : contact,
          createdAt: at,
        });
      }
      const status = rand() < 0.45 ? 0 : rand() < 0.4 ? 1 : rand() < 0.6 ? 2 : 3;
      tickets.push({
        id,
        ticketNumber: 100000 + id,
        title: `${pick(TOPICS)} #${100000 + id}`,
        channel: CHANNELS[id % CHANNELS.length],
        kind: kindOf(CHANNELS[id % CHANNELS.length]),
        status,
        severity: pick(SEVERITIES),
        departmentId: 1 + Math.floor(rand() * 3),
        contactName: contact,
        contactEmail: `${contact.toLowerCase().replace(/[^a-z]+/g, ".")}@example.com`,
        emotion: pick(EMOTIONS),
        lastMessage: last,
        responded: messageCount > 1,
        createdAt,
        updatedAt: at,
      });
      const labelCount = Math.floor(rand() * 3);
      const labelIds = new Set<number>();
      while (labelIds.size < labelCount) labelIds.add(1 + Math.floor(rand() * DEMO_LABELS.length));
      for (const labelId of labelIds) ticketLabels.push({ ticketId: id, labelId });
      const assigneeCount = Math.floor(rand() * 4);
      const assignees = new Set<number>();
      while (assignees.size < assigneeCount) assignees.add(pick(staff));
      // most conversations have been read; a third of the open and pending ones have news
      const unread = status < 2 && id % 3 === 0;
      for (const userId of assignees)
        participants.push({
          ticketId: id,
          userId,
          assignee: true,
          unread,
          kind: kindOf(CHANNELS[id % CHANNELS.length]),
          lastReadAt: unread ? 0 : at,
          addedAt: createdAt,
        });
    }
    await handle.transaction(async (tx) => {
      await tx.insert(schema.tickets).values(tickets);
      for (let i = 0; i < messages.length; i += 1000) await tx.insert(schema.messages).values(messages.slice(i, i + 1000));
      if (ticketLabels.length) await tx.insert(schema.ticketLabels).values(ticketLabels);
      if (participants.length) await tx.insert(schema.participants).values(participants);
    });
    done += size;
    if (opts.log && done % 50_000 < BATCH) opts.log(`${done} tickets`);
  }
  if (handle.dialect === "pg") {
    for (const table of ["tickets", "messages"])
      await handle.raw(sql.raw(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), greatest(1, (SELECT max(id) FROM ${table})))`));
    // fresh statistics, so the planner uses the list indexes right after a bulk load
    await handle.raw(sql.raw("ANALYZE"));
  }
}
