// A meeting across two server processes on one PostgreSQL database and one Redis: who is in it is
// the same from either node (the socket.io Redis adapter), signals cross from one node's socket to
// the other's, and when a node dies (SIGKILL, no goodbye) the people on it drop out of the other
// node's meeting at its next roster look; restarted, they join again.
import { test, expect } from "@playwright/test";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import pg from "pg";
import { io, type Socket } from "socket.io-client";
import { exited, startServer, stopServer, waitHealthy } from "../support/server-process";
import { PASSWORD } from "./helpers";

const PG_URL = process.env.TEST_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const basePort = Number(process.env.E2E_PORT || 3210) + 85;
const database = `omnidesk_meeting_cluster_${randomBytes(4).toString("hex")}`;
const nodes = new Map<number, ChildProcess>();
const sockets: Socket[] = [];
const base = (n: number) => `http://localhost:${basePort + n}`;

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
  nodes.set(
    n,
    startServer({
      PORT: String(basePort + n),
      DATABASE_URL: url.toString(),
      REDIS_URL,
      REDIS_KEY: database,
      SESSION_SECRET: "meeting-cluster-secret",
      DATA_DIR: `/tmp/${database}-${n}`,
      NODE_ENV: "test",
      JANUS_URL: "",
      MEETING_ROSTER_MS: "500",
      // two nodes on one machine: neither takes the mail port (nor another worker's)
      SMTP_LISTEN_PORT: "off",
    }),
  );
}

/** Ready: database and Redis both answer (sockets that come earlier are sent to reconnect). */
async function ready(n: number) {
  await waitHealthy(base(n));
  await expect.poll(async () => (await fetch(`${base(n)}/readyz`).catch(() => null))?.status, { timeout: 30_000 }).toBe(200);
}

async function signIn(username: string, type: "admin" | "agent") {
  const login = await fetch(`${base(1)}/?index`, {
    method: "POST",
    body: new URLSearchParams({ intent: "login", username, password: PASSWORD, type }),
    redirect: "manual",
  });
  return login.headers.get("set-cookie")!.split(";")[0];
}

async function connect(n: number, cookie: string) {
  const socket = io(base(n), { transports: ["websocket"], extraHeaders: { cookie }, reconnection: false });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.on("connect", () => resolve());
    socket.on("connect_error", reject);
  });
  return socket;
}

const ask = <T>(s: Socket, event: string, payload: unknown) => new Promise<T>((resolve) => s.emit(event, payload, resolve));
type Joined = { ok: boolean; peerId: number; mode: string; peers: { peerId: number; name: string }[] };

test.beforeAll(async () => {
  test.setTimeout(240_000);
  await admin(`CREATE DATABASE ${database}`);
  // node 1 migrates and seeds the empty database first; node 2 then finds it ready
  startNode(1);
  await ready(1);
  startNode(2);
  await ready(2);
});

test.afterAll(async () => {
  test.setTimeout(90_000); // two nodes to drain and a database to drop, on a busy machine
  for (const s of sockets) s.close();
  await Promise.all([...nodes.values()].map(stopServer));
  for (const n of [1, 2]) fs.rmSync(`/tmp/${database}-${n}`, { recursive: true, force: true });
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
});

test("people on two nodes see each other; a dead node's people drop out; back up, they join again", async () => {
  test.setTimeout(240_000);
  const hostCookie = await signIn("admin", "admin");
  const agentCookie = await signIn("agent", "agent");
  // the admin starts a meeting from the shell and invites the agent (the form's checkbox)
  const form = await (await fetch(`${base(1)}/meetings`, { headers: { cookie: hostCookie } })).text();
  const agentId = form
    .replaceAll("<!-- -->", "")
    .split('name="agents" value="')
    .find((part) => /^\d+"[^>]*>[^<]*\(agent\)/.test(part))
    ?.split('"')[0];
  expect(agentId).toBeTruthy();
  const started = await (
    await fetch(`${base(1)}/meetings`, {
      method: "POST",
      headers: { cookie: hostCookie },
      body: new URLSearchParams({ title: "Two nodes", agents: agentId! }),
    })
  ).text();
  const token = /\/meeting\/([A-Za-z0-9_-]{32})/.exec(started)?.[1];
  expect(token).toBeTruthy();

  const host = await connect(1, hostCookie);
  const agent = await connect(2, agentCookie);
  const hostJoined = await ask<Joined>(host, "joinMeeting", { token });
  expect(hostJoined).toMatchObject({ ok: true, mode: "mesh", peers: [] });
  const heard = new Promise<{ peerId: number; name: string }>((resolve) => host.once("meetingPeerJoined", resolve));
  const agentJoined = await ask<Joined>(agent, "joinMeeting", { token });
  // node 2 knows who is in on node 1, and node 1's socket hears of node 2's
  expect(agentJoined.peers).toEqual([expect.objectContaining({ peerId: hostJoined.peerId })]);
  expect((await heard).peerId).toBe(agentJoined.peerId);
  expect(await ask(agent, "getMeetingCount", { token })).toEqual({ ok: true, count: 2, ended: false });
  expect(await ask(host, "getMeetingCount", { token })).toEqual({ ok: true, count: 2, ended: false });

  // an offer and a trickled candidate from node 2's socket reach node 1's
  const signals: unknown[] = [];
  host.on("meetingSignal", (s) => signals.push(s));
  agent.emit("meetingSignal", { to: hostJoined.peerId, description: { type: "offer", sdp: "v=0" } });
  agent.emit("meetingSignal", { to: hostJoined.peerId, candidate: { candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host", sdpMid: "0", sdpMLineIndex: 0 } });
  await expect.poll(() => signals.length).toBe(2);
  expect(signals[0]).toMatchObject({ from: agentJoined.peerId, description: { type: "offer" } });
  expect(signals[1]).toMatchObject({ from: agentJoined.peerId, candidate: { sdpMid: "0" } });

  // node 1 dies without a word: node 2's page hears its person left, and the count says so
  const left = new Promise<{ peerId: number }>((resolve) => agent.once("meetingPeerLeft", resolve));
  const dead = nodes.get(1)!;
  dead.kill("SIGKILL");
  await exited(dead);
  expect(await left).toEqual({ peerId: hostJoined.peerId });
  expect(await ask(agent, "getMeetingCount", { token })).toEqual({ ok: true, count: 1, ended: false });

  // node 1 back: the host joins again through it, node 2's page sees them come
  startNode(1);
  await ready(1);
  const back = await connect(1, hostCookie);
  const cameBack = new Promise<{ peerId: number; name: string }>((resolve) => agent.once("meetingPeerJoined", resolve));
  const again = await ask<Joined>(back, "joinMeeting", { token });
  expect(again.peers).toEqual([expect.objectContaining({ peerId: agentJoined.peerId })]);
  expect((await cameBack).peerId).toBe(again.peerId);
  expect(await ask(agent, "getMeetingCount", { token })).toEqual({ ok: true, count: 2, ended: false });
});
