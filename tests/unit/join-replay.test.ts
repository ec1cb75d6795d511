// A page back after a cut catches up in its joinRoom: the answer carries the messages after the
// newest one it shows (as the page shows them), only for a reader of the conversation, paged like
// /api/ticket/data/check; a join that asks no replay gets none. Real socket.io over loopback.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asc } from "drizzle-orm";
import { Server } from "socket.io";
import { io as connect, type Socket } from "socket.io-client";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { canRead } from "~/conversation/access.server";
import { conversationById, reply } from "~/conversation/model.server";
import { REPLAY_LIMIT } from "~/conversation/message-view.server";
import { attachConversationSocket } from "~/conversation/socket.server";

type Answer = { ok: boolean; messages?: { id: number; body?: string; day?: string }[]; more?: boolean };

describe.each(DIALECTS)("joinRoom with a replay on %s", (dialect) => {
  let t: TestDb;
  let admin: UserRow, agent: UserRow;
  let server: http.Server;
  let io: Server;
  let url: string;
  const open: Socket[] = [];

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 30, now: Date.UTC(2026, 10, 21, 12) });
    [admin, agent] = await Promise.all(["admin", "agent"].map(async (u) => (await findUserByUsername(u))!));
    server = http.createServer();
    io = new Server(server);
    // as server.ts does once the session is checked: who the socket belongs to
    io.use((socket, next) => {
      const user = [admin, agent].find((u) => u.id === Number(socket.handshake.auth.userId))!;
      Object.assign(socket.data, { userId: user.id, username: user.username, name: user.name });
      next();
    });
    io.on("connection", (socket) => attachConversationSocket(io, socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await new Promise((resolve) => io?.close(resolve));
    await t?.cleanup();
  });

  async function socketOf(user: UserRow) {
    const s = connect(url, { transports: ["websocket"], auth: { userId: user.id }, reconnection: false });
    open.push(s);
    await new Promise<void>((resolve) => s.on("connect", resolve));
    return s;
  }
  const join = (s: Socket, payload: object) => new Promise<Answer>((resolve) => s.emit("joinRoom", payload, resolve));

  /** A conversation the agent may read and one they may not (another department's). */
  async function conversations() {
    const { db, schema } = t.handle;
    const rows = await db.select({ id: schema.tickets.id }).from(schema.tickets).orderBy(asc(schema.tickets.id));
    let readable: number | undefined, hidden: number | undefined;
    for (const r of rows) {
      if (await canRead(agent, r.id)) readable ??= r.id;
      else hidden ??= r.id;
    }
    return { readable: await conversationById(admin, readable!), hidden: await conversationById(admin, hidden!) };
  }

  it("answers the messages written after the newest one shown, oldest first, and none to a join that asks none", async () => {
    const { readable } = await conversations();
    const [seen] = await reply(admin, readable, { body: "the last one the page shows", files: [] });
    const missed = [];
    for (const body of ["written while offline 1", "written while offline 2"]) missed.push((await reply(admin, readable, { body, files: [] }))[0]);
    const s = await socketOf(agent);

    const answer = await join(s, { ticketId: readable.id, after: seen.id });
    expect(answer.ok).toBe(true);
    expect(answer.more).toBe(false);
    expect(answer.messages!.map((m) => m.id)).toEqual(missed.map((m) => m.id));
    // as the page shows them: the text and the day in the workspace's time zone
    expect(answer.messages![0]).toMatchObject({ body: "written while offline 1", day: expect.any(String) });

    expect(await join(s, { ticketId: readable.id })).toEqual({ ok: true });
    expect(await join(s, { ticketId: readable.id, after: "yesterday" })).toEqual({ ok: true });
  });

  it("pages a long absence like the check API, and replays nothing of a conversation the reader may not read", async () => {
    const { readable, hidden } = await conversations();
    const [from] = await reply(admin, readable, { body: "before the long cut", files: [] });
    for (let i = 0; i <= REPLAY_LIMIT; i++) await reply(admin, readable, { body: `long cut ${i}`, files: [] });
    const s = await socketOf(agent);
    const first = await join(s, { ticketId: readable.id, after: from.id });
    expect(first.messages).toHaveLength(REPLAY_LIMIT);
    expect(first.more).toBe(true);

    await reply(admin, hidden, { body: "not for the agent", files: [] });
    expect(await join(s, { ticketId: hidden.id, after: 0 })).toEqual({ ok: false });
  });
});
