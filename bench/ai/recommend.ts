// Reply recommendations and risk hints: what they cost the conversation page (they are computed
// in its panel loader, not on the reply path).
//   npm run bench:ai:recommend     (BENCH_REC_ARTICLES=2000 articles, BENCH_REC_ANSWERS=3000 resolved answers, BENCH_REC_RUNS=50)
// On a fresh SQLite database: the MiniSearch index's cold build (once a minute per reader), then
// ticketRecommendations and scamHintsForMessage with the index warm; medians and p95 in ms.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openDatabase, setDb } from "../../db/client";
import { seedDemo } from "../../app/seed/seed";
import { receive } from "../../app/conversation/receive.server";
import { findUserByUsername } from "../../app/accounts/users.server";
import { ticketRecommendations } from "../../plugins/ai/recommend.server";
import { forgetIndexes } from "../../plugins/ai/retrieve.server";
import { scamHintsForMessage } from "../../plugins/ai/scam.server";
import { stats } from "../support";

const ARTICLES = Number(process.env.BENCH_REC_ARTICLES || 2_000);
const ANSWERS = Number(process.env.BENCH_REC_ANSWERS || 3_000);
const RUNS = Number(process.env.BENCH_REC_RUNS || 50);
const TOPICS = ["parcel", "refund", "invoice", "password", "delivery", "charge", "subscription", "login", "voucher", "address"];

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-rec-"));
  process.env.DATA_DIR = dir;
  const handle = openDatabase(path.join(dir, "bench.sqlite"));
  await handle.migrate();
  setDb(handle);
  await seedDemo(handle, { tickets: 0 });
  try {
    const admin = (await findUserByUsername("admin"))!;
    const { db, schema } = handle;
    const now = Date.now();
    for (let i = 0; i < ARTICLES; i += 500)
      await db.insert(schema.kbArticles).values(
        Array.from({ length: Math.min(500, ARTICLES - i) }, (_, k) => {
          const topic = TOPICS[(i + k) % TOPICS.length];
          return {
            title: `About ${topic} ${i + k}`,
            body: `When your ${topic} has a problem, check step ${i + k} and then contact us. `.repeat(8),
            createdAt: now,
            updatedAt: now,
          };
        }),
      );
    const ticket = await receive({
      ticket: {
        channel: "EMAIL",
        title: "Bench",
        contactName: "",
        contactEmail: "b@example.com",
        contactPhone: "",
        customerId: "",
        departmentId: null,
        receiverEmail: "",
        channelAccountId: null,
      },
      message: { body: "seed", type: "text", senderName: "" },
      files: [],
    });
    const resolved = ticket.ticket.id;
    await db.update(schema.tickets).set({ status: 2 });
    for (let i = 0; i < ANSWERS; i += 500)
      await db.insert(schema.messages).values(
        Array.from({ length: Math.min(500, ANSWERS - i) }, (_, k) => ({
          ticketId: resolved,
          type: "text",
          body: `Hi Jo, I have fixed your ${TOPICS[(i + k) % TOPICS.length]} issue number ${i + k}: it is sorted now and you will see it within a day.`,
          senderUserId: admin.id,
          createdAt: now,
        })),
      );
    const open = await receive({
      ticket: {
        channel: "EMAIL",
        title: "Angry",
        contactName: "",
        contactEmail: "c@example.com",
        contactPhone: "",
        customerId: "",
        departmentId: null,
        receiverEmail: "",
        channelAccountId: null,
      },
      message: {
        body: "This is ridiculous! My parcel refund never came and the invoice is wrong. Call +60 12-345 6789 or see paypa1.com",
        type: "text",
        senderName: "",
      },
      files: [],
    });
    const cold: number[] = [];
    for (let i = 0; i < 5; i++) {
      forgetIndexes();
      const t = performance.now();
      await ticketRecommendations({ ticketId: open.ticket.id, reader: admin });
      cold.push(performance.now() - t);
    }
    const warm: number[] = [];
    const hints: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      await ticketRecommendations({ ticketId: open.ticket.id, reader: admin });
      warm.push(performance.now() - t);
      t = performance.now();
      await scamHintsForMessage({ ticketId: open.ticket.id });
      hints.push(performance.now() - t);
    }
    const show = (name: string, xs: number[]) => {
      const s = stats(xs);
      console.log(`${name}: median ${s.median.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms (${xs.length} runs)`);
    };
    console.log(`recommendations over ${ARTICLES} articles and ${ANSWERS} resolved answers (SQLite):`);
    show("cold (index built)", cold);
    show("warm (index cached)", warm);
    show("risk hints", hints);
  } finally {
    setDb(undefined);
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
