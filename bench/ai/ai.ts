// AI analysis throughput and the reply path's added latency.
//   npm run bench:ai            (BENCH_AI_MESSAGES=5000 analyser runs, BENCH_AI_JOB=2000 job messages, BENCH_AI_RECEIVES=300)
// 1. The offline analyser alone, on one core (one thread, synchronous): messages a second over the
//    labelled messages of tests/ai (mixed English, Malay, Chinese), and the time of a 100 KB message.
// 2. The analysis job end to end on a fresh SQLite database: pending messages read, analysed,
//    stored with the ticket's roll-up, a second.
// 3. The reply path: receive() (a customer's message coming in) with the AI plugin's look-and-job
//    running beside it and without; the analysis is off the request path, so the target is 0.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { openDatabase, setDb } from "../../db/client";
import { seedDemo } from "../../app/seed/seed";
import { receive } from "../../app/conversation/receive.server";
import { createJobWorker } from "../../app/jobs/queue.server";
import { analyseText } from "../../plugins/ai/analyse";
import { analysePending, defineAnalyseJob } from "../../plugins/ai/analysis.server";
import { start } from "../../plugins/ai/start.server";
import { load } from "../../tests/ai/eval";
import { stats } from "../support";

const N = Number(process.env.BENCH_AI_MESSAGES || 5_000);
const JOB = Number(process.env.BENCH_AI_JOB || 2_000);
const RECEIVES = Number(process.env.BENCH_AI_RECEIVES || 300);

const texts = [...load("dev.psv"), ...load("heldout.psv")].map((e) => e.text);

function analyserThroughput() {
  analyseText("warm up"); // loads wink's model
  for (let i = 0; i < 200; i++) analyseText(texts[i % texts.length]);
  const started = performance.now();
  for (let i = 0; i < N; i++) analyseText(texts[i % texts.length]);
  const seconds = (performance.now() - started) / 1000;
  const big = "My order is late again and I am furious, nobody answers! ".repeat(1_800);
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    analyseText(big);
    times.push(performance.now() - t);
  }
  console.log(`analyser: ${N} messages in ${seconds.toFixed(2)} s = ${Math.round(N / seconds)} messages/s on one core`);
  console.log(`analyser: a ${Math.round(big.length / 1024)} KB message: median ${stats(times).median.toFixed(1)} ms (read up to 8,000 characters)`);
}

async function withDatabase<T>(run: () => Promise<T>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-ai-"));
  process.env.DATA_DIR = dir;
  const handle = openDatabase(path.join(dir, "bench.sqlite"));
  await handle.migrate();
  setDb(handle);
  await seedDemo(handle, { tickets: 0 });
  try {
    return await run();
  } finally {
    setDb(undefined);
    await handle.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let seq = 0;
const customerWrites = (body: string) =>
  receive({
    ticket: {
      channel: "EMAIL",
      title: `Bench ${++seq}`,
      contactName: "",
      contactEmail: `bench${seq}@example.com`,
      contactPhone: "",
      customerId: "",
      departmentId: null,
      receiverEmail: "",
      channelAccountId: null,
    },
    message: { body, type: "text", senderName: "" },
    files: [],
  });

async function jobThroughput() {
  await withDatabase(async () => {
    for (let i = 0; i < JOB; i++) await customerWrites(texts[i % texts.length]);
    const started = performance.now();
    let done = 0;
    for (;;) {
      const n = await analysePending(0, 200);
      if (!n) break;
      done += n;
    }
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `job: ${done} messages analysed and stored with the ticket roll-up in ${seconds.toFixed(2)} s = ${Math.round(done / seconds)} messages/s (SQLite)`,
    );
  });
}

async function replyPath() {
  const timeReceives = async () => {
    const times: number[] = [];
    for (let i = 0; i < RECEIVES; i++) {
      const t = performance.now();
      await customerWrites(texts[i % texts.length]);
      times.push(performance.now() - t);
      // let the background look and job run between messages, as on a live node
      await new Promise((r) => setImmediate(r));
    }
    return stats(times);
  };
  await withDatabase(async () => {
    const without = await timeReceives();
    defineAnalyseJob();
    const stop = await start();
    const worker = createJobWorker({ log: () => undefined, pollMs: 50 }).start();
    const withAi = await timeReceives();
    await stop();
    await worker.stop();
    console.log(
      `reply path: receive() median ${without.median.toFixed(2)} ms, p95 ${without.p95.toFixed(2)} ms without the AI job; median ${withAi.median.toFixed(2)} ms, p95 ${withAi.p95.toFixed(2)} ms with it running beside`,
    );
    console.log(`reply path: added latency ${(withAi.median - without.median).toFixed(2)} ms (the analysis runs in the job, never in the request)`);
  });
}

analyserThroughput();
await jobThroughput();
await replyPath();
