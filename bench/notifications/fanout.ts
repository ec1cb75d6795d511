// Notification fan-out to many connected agents: BENCH_AGENTS (500) socket.io clients on loopback,
// each in its user:<id> room as the product's sockets are; each round writes one notification for
// every agent through the notification model in one transaction (addNotifications: the rows and
// their push jobs, as an announcement does) and tells them (newNotification). Prints, per round and
// overall, the time from the event (before the transaction) to each client's receipt: p50, p99, max.
//   npm run bench:notifications
// The socket layer is socket.io on this process's loopback (no cookies: the clients say who they
// are in the handshake); the database a fresh SQLite file. Figures on a shared 2-core machine are floors.
import os from "node:os";
import http from "node:http";
import { Server } from "socket.io";
import { io as connect, type Socket } from "socket.io-client";
import { createTestDb } from "../../tests/unit/harness";
import { seedDemo } from "../../app/seed/seed";
import { registerRealtime } from "../../app/realtime.server";
import { addNotifications, toldAll } from "../../app/conversation/notifications.server";
import { SERVER_EVENTS } from "../../app/realtime-events";

const AGENTS = Number(process.env.BENCH_AGENTS || 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 10);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const ms = (x: number) => `${x.toFixed(1)} ms`;

async function main() {
  console.log(
    `machine: ${os.cpus().length} cores, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}, node ${process.version}`,
  );
  const db = await createTestDb("sqlite");
  await seedDemo(db.handle, { tickets: 0 });
  const { schema } = db.handle;
  const now = Date.now();
  const ids: number[] = [];
  for (let i = 0; i < AGENTS; i += 200) {
    const rows = Array.from({ length: Math.min(200, AGENTS - i) }, (_, j) => ({
      username: `fanout_${i + j}`,
      name: `Fan-out Agent ${i + j}`,
      type: "agent",
      passwordHash: "!",
      departmentId: 2,
      createdAt: now,
    }));
    ids.push(...(await db.handle.db.insert(schema.users).values(rows).returning({ id: schema.users.id })).map((r) => r.id));
  }

  const server = http.createServer();
  const ioServer = new Server(server, { transports: ["websocket"] });
  ioServer.on("connection", (socket) => void socket.join(`user:${Number(socket.handshake.auth.userId)}`));
  registerRealtime(ioServer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;

  let round = 0;
  let sentAt = 0;
  const arrivals: number[][] = [];
  const clients: Socket[] = await Promise.all(
    ids.map(
      (userId) =>
        new Promise<Socket>((resolve, reject) => {
          const s = connect(`http://127.0.0.1:${port}`, { transports: ["websocket"], auth: { userId }, reconnection: false });
          s.on(SERVER_EVENTS.newNotification, () => arrivals[round]?.push(Date.now() - sentAt));
          s.once("connect", () => resolve(s));
          s.once("connect_error", reject);
        }),
    ),
  );
  console.log(`${clients.length} agents connected over socket.io (websocket, loopback)`);

  const all: number[] = [];
  for (round = 0; round < ROUNDS; round++) {
    arrivals[round] = [];
    sentAt = Date.now();
    const at = Date.now();
    await db.handle.transaction((tx) =>
      addNotifications(tx, ids, { type: "announcement", channel: "system", ticketNumber: null, title: `Bench round ${round}`, body: "Bench" }, at),
    );
    const committed = Date.now() - sentAt;
    toldAll(ids);
    const until = Date.now() + 30_000;
    while (arrivals[round].length < ids.length && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    const got = arrivals[round];
    all.push(...got);
    console.log(
      `round ${round + 1}: ${got.length}/${ids.length} delivered; commit ${ms(committed)}; event to delivery p50 ${ms(pct(got, 50))}, p99 ${ms(pct(got, 99))}, max ${ms(Math.max(...got))}`,
    );
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(`overall (${all.length} deliveries): p50 ${ms(pct(all, 50))}, p99 ${ms(pct(all, 99))}, max ${ms(Math.max(...all))}`);
  for (const c of clients) c.close();
  registerRealtime(undefined);
  ioServer.close();
  await db.cleanup();
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
