// Two server processes on one PostgreSQL database and one Redis: a message written through node 1
// reaches a socket connected to node 2 (socket.io Redis adapter).
import { test, expect } from "@playwright/test";
import type { ChildProcess } from "node:child_process";
import { startServer, stopServer, waitHealthy } from "../support/server-process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { io } from "socket.io-client";
import { PASSWORD } from "./helpers";

const PG_URL = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const basePort = Number(process.env.E2E_PORT || 3210) + 80;
const database = `omnidesk_cluster_${randomBytes(4).toString("hex")}`;
const servers: ChildProcess[] = [];

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function startNode(n: number) {
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  servers.push(
    startServer({
      PORT: String(basePort + n),
      DATABASE_URL: url.toString(),
      REDIS_URL,
      SESSION_SECRET: "cluster-secret",
      DATA_DIR: `/tmp/${database}-${n}`,
      NODE_ENV: "test",
    }),
  );
}

const healthy = (n: number) => waitHealthy(`http://localhost:${basePort + n}`);

test.beforeAll(async () => {
  test.setTimeout(120_000);
  await admin(`CREATE DATABASE ${database}`);
  // node 1 migrates and seeds the empty database first; node 2 then finds it ready
  startNode(1);
  await healthy(1);
  startNode(2);
  await healthy(2);
});

test.afterAll(async () => {
  await Promise.all(servers.map(stopServer));
  for (const n of [1, 2]) fs.rmSync(`/tmp/${database}-${n}`, { recursive: true, force: true });
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

test("a message written through node 1 reaches a socket on node 2", async () => {
  const node1 = `http://localhost:${basePort + 1}`;
  const node2 = `http://localhost:${basePort + 2}`;
  const login = await fetch(`${node1}/?index`, {
    method: "POST",
    body: new URLSearchParams({ intent: "login", username: "admin", password: PASSWORD, type: "admin" }),
    redirect: "manual",
  });
  const cookie = login.headers.get("set-cookie")!.split(";")[0];
  // the session lives in the shared database, so node 2 accepts the cookie node 1 set
  const socket = io(node2, { transports: ["websocket"], extraHeaders: { cookie }, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.on("connect", () => resolve());
    socket.on("connect_error", reject);
  });
  const auth = await (
    await fetch(`${node1}/api/auth2`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ client: "admin", password: PASSWORD, type: "admin" }),
    })
  ).json();
  const list = await (await fetch(`${node1}/api/ticket/load/${auth.token}/4/ticket/0`)).json();
  const ticketId = list.data[0].id;
  expect(await new Promise((resolve) => socket.emit("joinRoom", { ticketId }, resolve))).toEqual({ ok: true });

  const received = new Promise<{ ticketId: number; messageIds: number[] }>((resolve) => socket.on("newMessage", resolve));
  const sent = await (
    await fetch(`${node1}/api/ticket/message/reply`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ _token: auth.token, ticket_id: ticketId, message: "across nodes" }),
    })
  ).json();
  expect(sent.result).toBe("success");
  const event = await received;
  expect(event.ticketId).toBe(ticketId);
  expect(event.messageIds).toContain(sent.id);
  socket.close();
});
