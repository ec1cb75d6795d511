// The durable job queue on both dialects: a key is queued once; two nodes (two connections) run a
// job once; a lease that ran out is taken over; failures wait 1, 2, 4 ... minutes; waiting does not
// use up attempts; a failure that names its wait (Retry-After) waits that long and counts; a permanent failure and the last attempt give up and tell the kind once; Retry
// puts a failed job back. Jobs of one lane run one at a time and in order, other lanes beside them.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { inBackground, openDatabase, type DbHandle } from "@db/client";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { backoffMs, createJobWorker, defineJobKind, enqueue, LEASE_MS, PermanentFailure, retryJob, RetryAfter, WaitAndRetry } from "~/jobs/queue.server";

const MINUTE = 60_000;

describe("job waits", () => {
  it("double from 1 minute up to 1 hour", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => backoffMs(n) / MINUTE)).toEqual([1, 2, 4, 8, 16, 32, 60, 60]);
  });
});

describe("SQLite's one writer", () => {
  it("gives a request's transaction the next turn ahead of queued background work", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-writer-"));
    const handle = openDatabase(path.join(dir, "w.sqlite"));
    try {
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      // a job's transaction holds the writer; two more jobs' wait; then a webhook's comes
      const first = inBackground(() => handle.transaction(() => held.then(() => void order.push("job 1"))));
      const jobs = [2, 3].map((n) => inBackground(() => handle.transaction(async () => void order.push(`job ${n}`))));
      const request = handle.transaction(async () => void order.push("webhook"));
      release();
      await Promise.all([first, ...jobs, request]);
      expect(order).toEqual(["job 1", "webhook", "job 2", "job 3"]);
    } finally {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("SQLite's one connection", () => {
  it("keeps a write made meanwhile by another flow when a transaction is rolled back, and runs one made inside it as part of it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-writer-"));
    const handle = openDatabase(path.join(dir, "w.sqlite"));
    try {
      await handle.migrate();
      const { db, schema } = handle;
      const job = (key: string) => ({ kind: "test.meanwhile", key, payload: "{}", runAt: 0, createdAt: 0 });
      let opened!: () => void;
      const open = new Promise<void>((r) => (opened = r));
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      // a request's transaction writes, then waits (for its other statements) and fails
      const failing = handle.transaction(async (tx) => {
        await tx.insert(schema.jobs).values(job("undone"));
        opened();
        await held;
        throw new Error("refused");
      });
      await open;
      // meanwhile the job worker records a claim outside any transaction
      const meanwhile = db
        .insert(schema.jobs)
        .values(job("kept"))
        .then(() => "written");
      release();
      await expect(failing).rejects.toThrow("refused");
      expect(await meanwhile).toBe("written");
      const keys = (await db.select({ key: schema.jobs.key }).from(schema.jobs)).map((r) => r.key);
      expect(keys).toEqual(["kept"]);
    } finally {
      await handle.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(DIALECTS)("the job queue on %s", (dialect) => {
  let t: TestDb;
  let other: DbHandle;
  let clock = 0;
  // what each job's handler is told to do, by key, and what it did
  const behaviour = new Map<string, () => void | Promise<void>>();
  const runs: string[] = [];
  const failures: { key: string; error: string }[] = [];
  const workers: ReturnType<typeof createJobWorker>[] = [];
  const worker = (db?: DbHandle) => {
    const w = createJobWorker({ db, now: () => clock, log: () => undefined });
    workers.push(w);
    return w;
  };
  const row = async (key: string) => {
    const { db, schema } = t.handle;
    return (await db.select().from(schema.jobs).where(eq(schema.jobs.key, key)))[0];
  };
  const count = (key: string) => runs.filter((k) => k === key).length;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    other = openDatabase(t.url);
    defineJobKind("test.job", {
      maxAttempts: 3,
      async run(payload) {
        const { key } = payload as { key: string };
        runs.push(key);
        await behaviour.get(key)?.();
      },
      async failed(payload, error) {
        failures.push({ key: (payload as { key: string }).key, error });
      },
    });
  });
  beforeEach(() => {
    clock = Date.now() + 1000;
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop()));
    runs.length = 0;
    failures.length = 0;
    behaviour.clear();
    // each test runs its own jobs only
    await t.handle.db.delete(t.handle.schema.jobs);
  });
  afterAll(async () => {
    await other?.close();
    await t?.cleanup();
  });

  const add = (key: string) => enqueue(undefined, { kind: "test.job", key, payload: { key } });

  it("queues a key once and runs it once", async () => {
    await add("once");
    await t.handle.transaction((tx) => enqueue(tx, { kind: "test.job", key: "once", payload: { key: "other payload" } }));
    const w = worker();
    expect(await w.runOnce()).toBe(1);
    expect(await w.runOnce()).toBe(0);
    expect(runs).toEqual(["once"]);
    expect(await row("once")).toMatchObject({ state: "done", attempts: 1, lastError: null, finishedAt: clock });
  });

  it("runs each job once when two nodes work on the same database", async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `many-${i}`);
    for (const key of keys) {
      await add(key);
      // slow handlers: both nodes read the same due rows while the other is still busy
      behaviour.set(key, () => new Promise((r) => setTimeout(r, 5)));
    }
    const [a, b] = [worker(), worker(other)];
    let done = 0;
    for (let round = 0; round < 3; round++) done += (await Promise.all([a.runOnce(), b.runOnce()])).reduce((x, y) => x + y, 0);
    expect(done).toBe(12);
    expect([...runs].sort()).toEqual([...keys].sort());
    for (const key of keys) expect(await row(key)).toMatchObject({ state: "done", attempts: 1 });
  });

  it("works through a backlog larger than one batch without waiting for the next poll, a few jobs at once", { timeout: 60_000 }, async () => {
    const keys = Array.from({ length: 70 }, (_, i) => `backlog-${i}`);
    for (const key of keys) await add(key);
    let running = 0;
    let most = 0;
    for (const key of keys)
      behaviour.set(key, async () => {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 2));
        running--;
      });
    // polls an hour apart: only going on at once after a full batch gets through all 70 now
    const w = createJobWorker({ now: () => clock, pollMs: 60 * MINUTE, concurrency: 4, log: () => undefined });
    workers.push(w);
    w.start();
    // the next poll is an hour away, so reaching 70 at all proves it; the time allows a loaded machine
    // (65 of 70 after 10 s on PostgreSQL under a load average of 15, a CI run beside six agents)
    await expect.poll(() => runs.length, { timeout: 40_000 }).toBe(70);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(4);
  });

  it("lets waiting requests in between jobs of a backlog whose jobs never wait on I/O", { timeout: 60_000 }, async () => {
    // jobs that only compute and query (SQLite answers synchronously): without a yield a pass ran
    // its whole batch before the server could accept a connection
    const keys = Array.from({ length: 20 }, (_, i) => `busy-${i}`);
    for (const key of keys) await add(key);
    for (const key of keys) behaviour.set(key, () => undefined);
    const w = createJobWorker({ now: () => clock, pollMs: 60 * MINUTE, concurrency: 1, log: () => undefined });
    const pass = w.runOnce();
    // a request that arrived meanwhile is I/O: its callback runs in the check phase as setImmediate's do
    const ranBeforeRequest = await new Promise<number>((resolve) => setImmediate(() => resolve(runs.length)));
    expect(await pass).toBe(20);
    expect(ranBeforeRequest).toBeLessThanOrEqual(1);
  });
  const addIn = (lane: string, key: string) => enqueue(undefined, { kind: "test.job", key, payload: { key }, lane });

  it("runs a lane's jobs one at a time and in order with two workers, other lanes beside them", { timeout: 60_000 }, async () => {
    const lanes = { a: ["a1", "a2", "a3", "a4", "a5"], b: ["b1", "b2", "b3", "b4", "b5"] };
    // queued interleaved, as two customers' messages arrive
    for (let i = 0; i < 5; i++) for (const [lane, keys] of Object.entries(lanes)) await addIn(`in:1:${lane}`, keys[i]);
    const spans = new Map<string, { start: number; end: number }>();
    let tick = 0;
    for (const key of [...lanes.a, ...lanes.b])
      behaviour.set(key, async () => {
        const span = { start: ++tick, end: Infinity };
        spans.set(key, span);
        await new Promise((r) => setTimeout(r, 40));
        span.end = ++tick;
      });
    // two workers (two processes' connections), each with two jobs at a time: four could run at once
    for (const db of [undefined, other]) {
      const w = createJobWorker({ db, now: () => clock, pollMs: 20, concurrency: 2, log: () => undefined });
      workers.push(w);
      w.start();
    }
    await expect.poll(() => runs.length, { timeout: 40_000, interval: 20 }).toBe(10);
    for (const keys of Object.values(lanes)) {
      // in the order queued, each started after the one before it ended
      expect(runs.filter((k) => keys.includes(k))).toEqual(keys);
      for (let i = 1; i < keys.length; i++) expect(spans.get(keys[i])!.start).toBeGreaterThan(spans.get(keys[i - 1])!.end);
    }
    // the two lanes ran side by side
    const overlaps = lanes.a.some((x) => lanes.b.some((y) => spans.get(x)!.start < spans.get(y)!.end && spans.get(y)!.start < spans.get(x)!.end));
    expect(overlaps).toBe(true);
  });

  it("keeps a lane's later job waiting while an older one waits for its retry, and goes on once it is done", async () => {
    await addIn("out:7", "first");
    await addIn("out:7", "second");
    await add("elsewhere");
    let fail = true;
    behaviour.set("first", () => {
      if (fail) throw new Error("provider busy");
    });
    const w = worker();
    expect(await w.runOnce()).toBe(1);
    // "second" did not overtake "first"; a job of no lane was not held up (the two ran side by
    // side, in either order)
    expect([...runs].sort()).toEqual(["elsewhere", "first"]);
    expect(await row("second")).toMatchObject({ state: "queued", attempts: 0 });
    fail = false;
    clock += MINUTE;
    // polls an hour apart: the lane's next job runs at once after the one before it, not at the next poll
    const started = createJobWorker({ now: () => clock, pollMs: 60 * MINUTE, log: () => undefined });
    workers.push(started);
    started.start();
    await expect.poll(() => runs.length, { timeout: 10_000, interval: 20 }).toBe(4);
    expect(runs.slice(2)).toEqual(["first", "second"]);
  });

  it("has the database refuse a second running job of a lane", async () => {
    await addIn("in:1:x", "x1");
    await addIn("in:1:x", "x2");
    const { db, schema } = t.handle;
    // another node runs x1 (its lease still good)
    await db
      .update(schema.jobs)
      .set({ state: "running", attempts: 1, runAt: clock + LEASE_MS })
      .where(eq(schema.jobs.key, "x1"));
    await expect(db.update(schema.jobs).set({ state: "running" }).where(eq(schema.jobs.key, "x2"))).rejects.toThrow();
    // and a worker finds nothing of that lane to claim meanwhile
    expect(await worker().runOnce()).toBe(0);
    expect(runs).toEqual([]);
  });

  it("on stop claims no more, lets a running job finish by the deadline and gives one it cut back, due at once", async () => {
    for (const key of ["short", "long", "never"]) await add(key);
    let release = () => {};
    behaviour.set("short", () => new Promise((r) => setTimeout(r, 1000)));
    behaviour.set("long", () => new Promise<void>((r) => (release = r)));
    const w = createJobWorker({ now: () => clock, pollMs: 60 * MINUTE, concurrency: 2, log: () => undefined });
    w.start();
    await expect.poll(() => runs.length, { timeout: 10_000, interval: 20 }).toBe(2);
    // the deadline is 3 s away: "short" ends in it, "long" does not
    expect(await w.stop(clock + 3000)).toBe(false);
    expect(await row("short")).toMatchObject({ state: "done", attempts: 1 });
    expect(await row("long")).toMatchObject({ state: "queued", attempts: 0, runAt: clock });
    expect(await row("never")).toMatchObject({ state: "queued", attempts: 0 });
    expect([...runs].sort()).toEqual(["long", "short"]);
    release();
  });

  it("runs a job again once the lease of a node that died mid-job runs out", async () => {
    await add("crashed");
    const { db, schema } = t.handle;
    // another node claimed it and never came back
    await db
      .update(schema.jobs)
      .set({ state: "running", attempts: 1, runAt: clock + LEASE_MS })
      .where(eq(schema.jobs.key, "crashed"));
    const w = worker();
    clock += LEASE_MS - 1;
    expect(await w.runOnce()).toBe(0);
    expect(runs).toEqual([]);
    clock += 1;
    expect(await w.runOnce()).toBe(1);
    expect(runs).toEqual(["crashed"]);
    expect(await row("crashed")).toMatchObject({ state: "done", attempts: 2 });
  });

  it("runs a job that takes longer than its lease once, while another node keeps looking", { timeout: 20_000 }, async () => {
    await add("slow");
    behaviour.set("slow", () => new Promise((r) => setTimeout(r, 1_200)));
    // real clocks: the lease is 300 ms, the job takes four of them
    const a = createJobWorker({ leaseMs: 300, log: () => undefined });
    const b = createJobWorker({ db: other, leaseMs: 300, log: () => undefined });
    workers.push(a, b);
    const first = a.runOnce();
    while (runs.length === 0) await new Promise((r) => setTimeout(r, 10));
    const until = Date.now() + 1_500;
    while (Date.now() < until) {
      await b.runOnce();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await first).toBe(1);
    expect(runs).toEqual(["slow"]);
    expect(await row("slow")).toMatchObject({ state: "done", attempts: 1 });
  });

  it("tries a failed job again after a minute, then after two, keeping the last error", async () => {
    await add("flaky");
    let fail = true;
    behaviour.set("flaky", () => {
      if (fail) throw new Error("provider busy");
    });
    const w = worker();
    const start = clock;
    expect(await w.runOnce()).toBe(0);
    expect(await row("flaky")).toMatchObject({ state: "queued", attempts: 1, runAt: start + MINUTE, lastError: "provider busy" });
    clock = start + MINUTE - 1;
    expect(await w.runOnce()).toBe(0);
    expect(count("flaky")).toBe(1); // not due yet: not even tried
    clock = start + MINUTE;
    expect(await w.runOnce()).toBe(0);
    expect(await row("flaky")).toMatchObject({ state: "queued", attempts: 2, runAt: clock + 2 * MINUTE });
    fail = false;
    clock += 2 * MINUTE;
    expect(await w.runOnce()).toBe(1);
    expect(await row("flaky")).toMatchObject({ state: "done", attempts: 3, lastError: null });
    expect(failures).toEqual([]);
  });

  it("waits as long as a failure's Retry-After says, and counts the attempt", async () => {
    await add("throttled");
    let throttled = 2;
    behaviour.set("throttled", () => {
      if (throttled-- > 0) throw new RetryAfter("429 quota", 17_000);
    });
    const w = worker();
    expect(await w.runOnce()).toBe(0);
    // not the first backoff's minute: the 17 s the service asked for
    expect(await row("throttled")).toMatchObject({ state: "queued", attempts: 1, runAt: clock + 17_000, lastError: "429 quota" });
    clock += 16_000;
    expect(await w.runOnce()).toBe(0);
    expect(count("throttled")).toBe(1);
    clock += 1_000;
    expect(await w.runOnce()).toBe(0);
    expect(await row("throttled")).toMatchObject({ state: "queued", attempts: 2, runAt: clock + 17_000 });
    clock += 17_000;
    expect(await w.runOnce()).toBe(1);
    expect(await row("throttled")).toMatchObject({ state: "done", attempts: 3 });
    // it still counts against the kind's attempts: always throttled gives up after 3
    await add("always-throttled");
    behaviour.set("always-throttled", () => {
      throw new RetryAfter("503 unavailable", 1_000);
    });
    for (let i = 0; i < 3; i++) {
      await w.runOnce();
      clock += 1_000;
    }
    expect(await row("always-throttled")).toMatchObject({ state: "failed", attempts: 3 });
    expect(failures).toEqual([{ key: "always-throttled", error: "503 unavailable" }]);
  });

  it("waits without using up attempts", async () => {
    await add("waits");
    let waiting = true;
    behaviour.set("waits", () => {
      if (waiting) throw new WaitAndRetry("not-configured", 5_000);
    });
    const w = worker();
    // far more waits than the kind's 3 attempts
    for (let i = 0; i < 6; i++) {
      expect(await w.runOnce()).toBe(0);
      expect(await row("waits")).toMatchObject({ state: "queued", attempts: 0, runAt: clock + 5_000, lastError: "not-configured" });
      clock += 5_000;
    }
    waiting = false;
    expect(await w.runOnce()).toBe(1);
    expect(count("waits")).toBe(7);
    expect(await row("waits")).toMatchObject({ state: "done", attempts: 1 });
    expect(failures).toEqual([]);
  });

  it("knows a wait and a permanent failure thrown from the other bundle's copy of the classes", async () => {
    // server.ts runs the worker; plugins' adapters come from the Remix build, with their own classes
    class OtherWaitAndRetry extends Error {
      readonly jobOutcome = "wait";
      readonly delayMs = 5_000;
    }
    class OtherPermanentFailure extends Error {
      readonly jobOutcome = "permanent";
    }
    await add("other-wait");
    await add("other-refused");
    behaviour.set("other-wait", () => {
      throw new OtherWaitAndRetry("not-configured");
    });
    behaviour.set("other-refused", () => {
      throw new OtherPermanentFailure("554 rejected");
    });
    await worker().runOnce();
    expect(await row("other-wait")).toMatchObject({ state: "queued", attempts: 0, runAt: clock + 5_000 });
    expect(await row("other-refused")).toMatchObject({ state: "failed", attempts: 1 });
    expect(failures).toEqual([{ key: "other-refused", error: "554 rejected" }]);
  });

  it("gives up at once on a permanent failure and tells the kind once", async () => {
    await add("refused");
    behaviour.set("refused", () => {
      throw new PermanentFailure("550 no such user");
    });
    const w = worker();
    expect(await w.runOnce()).toBe(0);
    expect(await row("refused")).toMatchObject({ state: "failed", attempts: 1, lastError: "550 no such user" });
    clock += 2 * 60 * MINUTE;
    expect(await w.runOnce()).toBe(0);
    expect(count("refused")).toBe(1);
    expect(failures).toEqual([{ key: "refused", error: "550 no such user" }]);
  });

  it("gives up after the kind's attempts, and runs again from the start on Retry", async () => {
    await add("hopeless");
    let fail = true;
    behaviour.set("hopeless", () => {
      if (fail) throw new Error("timeout");
    });
    const w = worker();
    for (let i = 0; i < 6; i++) {
      await w.runOnce();
      clock += 61 * MINUTE;
    }
    expect(count("hopeless")).toBe(3);
    expect(await row("hopeless")).toMatchObject({ state: "failed", attempts: 3, lastError: "timeout" });
    expect(failures).toEqual([{ key: "hopeless", error: "timeout" }]);
    // Retry of an unknown key does nothing; of a failed job, runs it again (once for a double click)
    expect(await retryJob("nothing-like-it")).toBe(false);
    fail = false;
    expect(await retryJob("hopeless")).toBe(true);
    expect(await retryJob("hopeless")).toBe(false);
    clock = Date.now() + 1000;
    expect(await w.runOnce()).toBe(1);
    expect(await row("hopeless")).toMatchObject({ state: "done", attempts: 1 });
  });
});
