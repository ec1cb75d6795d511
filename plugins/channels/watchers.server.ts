// Each enabled account's watcher (IMAP polling, Graph delta), on one node at a time. Which node
// watches an account is a lease in channel_cursors (key "watch-lease"): taken by an insert whose
// conflict update only applies while the lease is ours or has run out, renewed while watching,
// released on stop. The same statement works on SQLite and PostgreSQL (ON CONFLICT ... WHERE).
import os from "node:os";
import { randomBytes } from "node:crypto";
import { and, eq, like, lt, or } from "drizzle-orm";
import { getDb } from "@db/client";
import { warnings, type LogFn } from "~/ops/log.server";
import { adapterFor } from "./adapters.server";
import { enabledAccounts } from "./accounts.server";
import type { ChannelAccount } from "./adapter";

export const LEASE_KEY = "watch-lease";

export interface WatcherOptions {
  /** This node's name in the lease (default host, pid and a random part). */
  nodeId?: string;
  /** How long a lease lasts without renewal (WATCH_LEASE_MS, default 90 s). */
  leaseMs?: number;
  /** How often leases are renewed and accounts looked at again (default a third of the lease). */
  refreshMs?: number;
  log?: LogFn;
}

interface Running {
  signature: string;
  stop: () => Promise<void>;
}

// what a watcher was started with: a change to any of it restarts the watcher
const signature = (a: ChannelAccount) => JSON.stringify([a.address, a.config, a.secrets]);

export function createWatchers(options: WatcherOptions = {}) {
  const nodeId = options.nodeId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const leaseMs = options.leaseMs ?? (Number(process.env.WATCH_LEASE_MS) || 90_000);
  const refreshMs = options.refreshMs ?? Math.floor(leaseMs / 3);
  const log = options.log ?? warnings("channels");
  const running = new Map<number, Running>();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();

  /** Takes or renews the lease; false while another node holds an unexpired one. */
  async function lease(accountId: number) {
    const { db, schema } = getDb();
    const c = schema.channelCursors;
    const now = Date.now();
    const value = `${nodeId} ${now + leaseMs}`;
    const rows = await db
      .insert(c)
      .values({ accountId, key: LEASE_KEY, value, updatedAt: now })
      .onConflictDoUpdate({
        target: [c.accountId, c.key],
        set: { value, updatedAt: now },
        // ours, or its holder stopped renewing it (updatedAt is the last renewal)
        setWhere: or(like(c.value, `${nodeId} %`), lt(c.updatedAt, now - leaseMs)),
      })
      .returning({ value: c.value });
    return rows.length > 0;
  }

  async function release(accountId: number) {
    const { db, schema } = getDb();
    const c = schema.channelCursors;
    await db.delete(c).where(and(eq(c.accountId, accountId), eq(c.key, LEASE_KEY), like(c.value, `${nodeId} %`)));
  }

  async function stopOne(accountId: number) {
    const current = running.get(accountId);
    if (!current) return;
    running.delete(accountId);
    await current.stop().catch((error) => log(`channel watcher ${accountId}: stopping failed`, error));
    await release(accountId).catch(() => undefined);
  }

  async function pass() {
    const wanted = new Map<number, ChannelAccount>();
    for (const account of await enabledAccounts()) {
      const adapter = await adapterFor(account.kind);
      if (adapter?.watch) wanted.set(account.id, account);
    }
    // disabled, deleted or changed since started: stop (a changed one starts again below)
    for (const [id, r] of [...running]) {
      const account = wanted.get(id);
      if (!account || signature(account) !== r.signature) await stopOne(id);
    }
    for (const [id, account] of wanted) {
      if (stopped) return;
      let ours = false;
      try {
        ours = await lease(id);
      } catch (error) {
        log(`channel watcher ${id}: lease not taken`, error);
      }
      if (!ours) {
        // another node took it over (we were too slow to renew): only one may poll
        if (running.has(id)) await stopOne(id);
        continue;
      }
      if (running.has(id)) continue;
      const adapter = await adapterFor(account.kind);
      running.set(id, { signature: signature(account), stop: adapter!.watch!(account) });
    }
  }

  /** Looks at the accounts again now (after settings change); answers once that is done. */
  function refresh() {
    if (stopped) return Promise.resolve();
    busy = busy.then(pass, pass).catch((error) => log("channel watchers: a pass failed", error));
    return busy;
  }

  function schedule() {
    clearTimeout(timer);
    if (stopped) return;
    timer = setTimeout(() => void refresh().finally(schedule), refreshMs);
    timer.unref();
  }

  return {
    nodeId,
    /** Which accounts this node watches now. */
    watching: () => [...running.keys()],
    async start() {
      stopped = false;
      await refresh();
      schedule();
    },
    refresh,
    /** Restarts one account's watcher (its settings changed, it was enabled or disabled). */
    async changed(accountId: number) {
      busy = busy.then(() => stopOne(accountId)).catch(() => undefined);
      await refresh();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await busy;
      await Promise.all([...running.keys()].map(stopOne));
    },
  };
}

let current: ReturnType<typeof createWatchers> | undefined;

/** Starts this node's watchers (plugins/channels/start.server.ts); answers their stop. */
export async function startWatchers(options?: WatcherOptions) {
  const watchers = createWatchers(options);
  current = watchers;
  await watchers.start();
  return async () => {
    if (current === watchers) current = undefined;
    await watchers.stop();
  };
}

/** For the settings pages after a save, enable or disable: the account's watcher starts again with what was saved. */
export async function watcherChanged(accountId: number) {
  await current?.changed(accountId);
}

/** Looks at all accounts again (an account added or removed). */
export async function refreshWatchers() {
  await current?.refresh();
}
