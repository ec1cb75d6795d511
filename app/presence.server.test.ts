// Presence news is per user and coalesced: many sockets of one user, or a storm of connects,
// cost one statusUpdated, and a user's other sockets coming and going cost none.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Server } from "socket.io";
import { io as connect, type Socket } from "socket.io-client";
import { flushPresence, registerRealtime, setPresenceWindow, socketDown, socketUp } from "./realtime.server";

let server: http.Server;
let io: Server;
let url: string;
const open: Socket[] = [];

beforeAll(async () => {
  server = http.createServer();
  io = new Server(server);
  // as server.ts and socket.server.ts do: the user from the handshake, presence on connect
  io.use((socket, next) => {
    socket.data.userId = Number(socket.handshake.auth.userId);
    socket.data.shadow = !!socket.handshake.auth.shadow;
    next();
  });
  io.on("connection", (socket) => {
    // a round trip: whatever the server sent before reaches the client before this answer
    socket.on("roundTrip", (ack: () => void) => ack());
    if (socket.data.shadow) return;
    socketUp(socket.data.userId);
    socket.on("disconnect", () => socketDown(socket.data.userId));
  });
  registerRealtime(io);
  setPresenceWindow(60_000); // the test flushes by itself
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const s of open) s.close();
  registerRealtime(undefined);
  await new Promise((resolve) => io.close(resolve));
});

async function socketOf(userId: number, shadow = false) {
  const s = connect(url, { transports: ["websocket"], auth: { userId, shadow }, reconnection: false });
  open.push(s);
  await new Promise<void>((resolve) => s.on("connect", resolve));
  return s;
}

const serverSockets = () => io.of("/").sockets.size;

describe("presence", () => {
  it("broadcasts once per window for many sockets, and only when someone comes or goes", async () => {
    const observer = await socketOf(1);
    await flushPresence();
    await new Promise<void>((resolve) => observer.emit("roundTrip", resolve));
    let heard = 0;
    observer.on("statusUpdated", () => heard++);
    const count = async () => {
      await flushPresence();
      // an event sent would reach the observer before this round trip answers
      await new Promise<void>((resolve) => observer.emit("roundTrip", resolve));
      const n = heard;
      heard = 0;
      return n;
    };

    // 30 sockets of 3 users (a storm of tabs): one broadcast, not one per socket
    const tabs = [];
    for (const userId of [2, 3, 4]) for (let i = 0; i < 10; i++) tabs.push({ userId, socket: await socketOf(userId) });
    expect(await count()).toBe(1);

    // more tabs of users already online, and a shadow admin: nothing to tell
    await socketOf(2);
    await socketOf(99, true);
    expect(await count()).toBe(0);

    // user 2 closes all but one tab: still online, nothing to tell
    const twos = tabs.filter((t) => t.userId === 2);
    for (const t of twos) t.socket.close();
    await vi.waitFor(() => expect(serverSockets()).toBe(1 + 30 + 2 - 10));
    expect(await count()).toBe(0);

    // user 3 closes every tab: gone, told once
    for (const t of tabs.filter((t) => t.userId === 3)) t.socket.close();
    await vi.waitFor(() => expect(serverSockets()).toBe(1 + 30 + 2 - 20));
    expect(await count()).toBe(1);
  });
});
