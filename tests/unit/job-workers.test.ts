// Realtime events of jobs run in a worker process (ADR 050, without Redis): the worker's io has no
// sockets; what it emits, and the sockets it asks for, are the web node's, over the IPC channel.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fork, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Server } from "socket.io";
import { io as connect, type Socket } from "socket.io-client";
import { childrenLink, ipcAdapter } from "~/ops/ipc-adapter.server";

let server: http.Server;
let io: Server;
let worker: ChildProcess;
const clients: Socket[] = [];
const next = (child: ChildProcess, tag: string) =>
  new Promise<Record<string, unknown>>((resolve) => {
    const listen = (m: unknown) => {
      if ((m as { tag?: string }).tag !== tag) return;
      child.off("message", listen);
      resolve(m as Record<string, unknown>);
    };
    child.on("message", listen);
  });

beforeAll(async () => {
  server = http.createServer();
  io = new Server(server);
  const link = childrenLink();
  io.adapter(ipcAdapter(link));
  io.use((socket, done) => {
    socket.data.userId = Number(socket.handshake.auth.userId);
    socket.join(`user:${socket.data.userId}`);
    done();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  worker = fork("tests/support/ipc-worker.ts", [], { execArgv: ["--import", "tsx"], serialization: "advanced" });
  const ready = next(worker, "test:ready");
  link.add(worker);
  await ready;
});

afterAll(async () => {
  clients.forEach((c) => c.close());
  worker?.kill();
  io?.close();
});

it("delivers a worker's emits to the web node's sockets in the room, and lets it fetch them", async () => {
  const { port } = server.address() as AddressInfo;
  const join = (userId: number) => {
    const c = connect(`http://127.0.0.1:${port}`, { auth: { userId }, transports: ["websocket"] });
    clients.push(c);
    return new Promise<Socket>((resolve) => c.on("connect", () => resolve(c)));
  };
  const [seven, eight] = await Promise.all([join(7), join(8)]);
  const heard: string[] = [];
  seven.on("news", () => heard.push("7 news"));
  seven.on("personal", (p: { userId: number }) => heard.push(`7 personal ${p.userId}`));
  eight.on("news", () => heard.push("8 news"));
  // the worker knows the web node once their heartbeats met
  await new Promise((r) => setTimeout(r, 300));
  const done = next(worker, "test:done");
  worker.send({ tag: "test:publish", room: "user:7" });
  expect((await done).seen).toEqual([7]);
  await expect.poll(() => [...heard].sort()).toEqual(["7 news", "7 personal 7"]);
});
