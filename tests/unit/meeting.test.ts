// Video meetings (plugins/meeting) on both dialects: tokens, who may join (the conversation's
// agents, invited agents, guests through a one-time link bound to one browser), the refusal pages
// (ended, not invited, link used), start and end logged in the conversation; the limit over real
// socket.io on loopback (20 people joining one mesh meeting); TURN credentials checked by a real
// coturn (Debian `coturn`) when it is installed.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import type { AddressInfo } from "node:net";
import type { AppLoadContext, LoaderFunctionArgs } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { Server } from "socket.io";
import { io as connect, type Socket } from "socket.io-client";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { findUserByUsername, type UserRow } from "~/accounts/users.server";
import { createSession } from "~/accounts/sessions.server";
import { sessionCookie } from "~/cookies.server";
import { insertTicket } from "~/conversation/model.server";
import {
  agentMayJoin,
  claimGuestLink,
  endMeeting,
  guestInvite,
  guestOf,
  meetingByToken,
  recordAttendee,
  startMeeting,
  validToken,
} from "@plugins/meeting/meeting.server";
import { admits, MESH_LIMIT, meetingLimit } from "@plugins/meeting/limits";
import { candidateOf } from "@plugins/meeting/socket.server";
import { iceServersFor, turnCredential, turnCredentialValid } from "@plugins/meeting/turn.server";
import { attachNamespaces, attachSocket } from "@plugins/meeting/socket.server";
import { loader as meetingLoader, action as meetingAction } from "@plugins/meeting/routes/meeting";
import { coturnArgs, coturnPresent, janusPresent, startMediaServers, type MediaServers } from "@plugins/meeting/janus/servers";
import { freePort } from "@plugins/calls/sip/servers";

async function call(fn: (args: LoaderFunctionArgs) => unknown, request: Request, params: Record<string, string> = {}) {
  try {
    const context = { clientIp: "192.0.2.10" } as unknown as AppLoadContext;
    return (await fn({ request, context, params })) as Response;
  } catch (thrown) {
    if (thrown instanceof Response) return thrown;
    throw thrown;
  }
}

describe("meeting limits", () => {
  it("mesh holds three people, Janus as many as its limit; a second tab of someone inside is no new person", () => {
    expect(MESH_LIMIT).toBe(3);
    expect(admits("mesh", 2, false).ok).toBe(true);
    expect(admits("mesh", 3, false)).toEqual({ ok: false, limit: 3 });
    expect(admits("mesh", 3, true).ok).toBe(true);
    expect(meetingLimit("sfu", { MEETING_SFU_LIMIT: "8" })).toBe(8);
    expect(admits("sfu", 7, false, { MEETING_SFU_LIMIT: "8" }).ok).toBe(true);
    expect(admits("sfu", 8, false, { MEETING_SFU_LIMIT: "8" }).ok).toBe(false);
    expect(meetingLimit("sfu", { MEETING_SFU_LIMIT: "nonsense" })).toBeGreaterThan(MESH_LIMIT);
  });
});

describe("ICE candidates from browsers", () => {
  it("takes what RTCIceCandidate.toJSON() gives and nothing else", () => {
    const c = { candidate: "candidate:1 1 udp 1 127.0.0.1 9 typ host", sdpMid: "0", sdpMLineIndex: 0 };
    expect(candidateOf({ ...c, usernameFragment: "u", other: 1 })).toEqual(c);
    expect(candidateOf({ ...c, sdpMid: null })).toEqual({ ...c, sdpMid: null });
    expect(candidateOf({ candidate: "x", sdpMid: null, sdpMLineIndex: null })).toBeNull();
    expect(candidateOf({ candidate: "x".repeat(2000), sdpMid: "0" })).toBeNull();
    expect(candidateOf("candidate:1")).toBeNull();
    expect(candidateOf(null)).toBeNull();
  });
});

describe("TURN credentials (the TURN REST API scheme)", () => {
  const now = Date.UTC(2026, 0, 1);
  it("names the expiry and the user, signs with HMAC-SHA1 of the shared secret, and expires", () => {
    const c = turnCredential("s3cret", "7", now, 600);
    expect(c.username).toBe(`${now / 1000 + 600}:7`);
    // the value coturn computes: base64(HMAC-SHA1(secret, username)), checked against openssl's
    const openssl = spawnSync("openssl", ["dgst", "-sha1", "-hmac", "s3cret", "-binary"], { input: c.username });
    if (openssl.status === 0) expect(c.credential).toBe(openssl.stdout.toString("base64"));
    expect(turnCredentialValid("s3cret", c.username, c.credential, now)).toBe(true);
    expect(turnCredentialValid("other", c.username, c.credential, now)).toBe(false);
    expect(turnCredentialValid("s3cret", c.username, c.credential, now + 601_000)).toBe(false);
    expect(turnCredentialValid("s3cret", c.username.replace(":7", ":8"), c.credential, now)).toBe(false);
  });
  it("hands out TURN only when configured, each person with their own credential", () => {
    expect(iceServersFor("user:1", {})).toEqual([]);
    expect(iceServersFor("user:1", { TURN_URLS: "turn:127.0.0.1:3478" })).toEqual([]);
    const env = {
      TURN_URLS: "turn:127.0.0.1:3478, turn:127.0.0.1:3478?transport=tcp",
      TURN_SECRET: "s3cret",
      STUN_URLS: "stun:127.0.0.1:3478",
      TURN_TTL: "300",
    };
    const [stun, turn] = iceServersFor("user:1", env, now);
    expect(stun).toEqual({ urls: "stun:127.0.0.1:3478" });
    expect(turn.urls).toEqual(["turn:127.0.0.1:3478", "turn:127.0.0.1:3478?transport=tcp"]);
    expect(turn.username).toBe(`${now / 1000 + 300}:user:1`);
    expect(iceServersFor("guest:4", env, now)[1].username).toBe(`${now / 1000 + 300}:guest:4`);
  });

  describe.skipIf(!coturnPresent())("against coturn", () => {
    let turn: ChildProcess;
    let port: number;
    beforeAll(async () => {
      port = await freePort("udp");
      // each allocation holds a relay port for its lifetime: room for every test's
      const relayMin = 46000 + Math.floor(Math.random() * 10) * 100;
      turn = spawn("/usr/bin/turnserver", coturnArgs({ listen: "127.0.0.1", port, secret: "unit-s3cret", relayMin, relayMax: relayMin + 99 }), {
        stdio: "ignore",
      });
      await new Promise((r) => setTimeout(r, 1500));
    });
    afterAll(() => void turn?.kill("SIGTERM"));
    // turnutils_uclient allocates a relay with the credential and sends packets through it (to
    // another of its relays, -y, or to `peer`)
    const allocate = (username: string, password: string, peer?: string) =>
      spawnSync(
        "/usr/bin/turnutils_uclient",
        ["-u", username, "-w", password, "-p", String(port), "-n", "2", "-m", "1", ...(peer ? ["-e", peer] : ["-y"]), "127.0.0.1"],
        { timeout: 15_000 },
      ).stdout.toString();
    it("relays for a fresh credential and refuses a forged or expired one", () => {
      const fresh = turnCredential("unit-s3cret", "user:1");
      expect(allocate(fresh.username, fresh.credential)).toMatch(/tot_recv_bytes ~ [1-9]/);
      expect(allocate(fresh.username, "forged")).toMatch(/Cannot complete Allocation/);
      const expired = turnCredential("unit-s3cret", "user:1", Date.now() - 7200_000, 60);
      expect(allocate(expired.username, expired.credential)).toMatch(/Cannot complete Allocation/);
    }, 60_000);
    it("relays to the media servers' address but never into a private network (no way in behind it)", () => {
      const fresh = turnCredential("unit-s3cret", "user:1");
      for (const peer of ["10.1.2.3", "192.168.1.5", "172.16.0.9", "169.254.169.254"])
        expect(allocate(fresh.username, fresh.credential, peer), peer).toMatch(/403 \(Forbidden IP\)/);
      expect(allocate(fresh.username, fresh.credential, "127.0.0.1")).not.toMatch(/Forbidden IP/);
    }, 60_000);
  });
});

describe.each(DIALECTS)("meetings (%s)", (dialect) => {
  let t: TestDb;
  let admin: UserRow;
  let agent: UserRow;
  let outsider: UserRow;
  let ticket: { id: number; ticketNumber: number };
  const actorOf = (u: UserRow) => ({ id: u.id, type: u.type, departmentId: u.departmentId, name: u.name, username: u.username });
  const systemTexts = async (ticketId: number) => {
    const { db, schema } = t.handle;
    const rows = await db
      .select({ body: schema.messages.body })
      .from(schema.messages)
      .where(and(eq(schema.messages.ticketId, ticketId), eq(schema.messages.type, "system")));
    return rows.map((r) => JSON.parse(r.body) as { text: string; values: Record<string, string>; by: string });
  };

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0 });
    admin = (await findUserByUsername("admin"))!;
    agent = (await findUserByUsername("agent"))!;
    // an agent of another department: cannot read the agent's department's tickets
    const { db, schema } = t.handle;
    const [other] = await db
      .insert(schema.users)
      .values({
        username: `outsider-${dialect}`,
        name: "Olive Outsider",
        email: `outsider-${dialect}@example.com`,
        type: "agent",
        departmentId: agent.departmentId === 1 ? 3 : 1,
        passwordHash: "x",
        createdAt: Date.now(),
      } as typeof schema.users.$inferInsert)
      .returning();
    outsider = other as UserRow;
    ticket = await t.handle.transaction((tx) =>
      insertTicket(
        tx,
        {
          title: "Parcel late",
          channel: "EMAIL",
          departmentId: agent.departmentId!,
          contactName: "Mei Tan",
          contactEmail: "mei@example.com",
          contactPhone: "",
        },
        "Where?",
        Date.now(),
      ),
    );
  }, 60_000);
  afterAll(async () => t?.cleanup());

  it("gives each meeting an unguessable token; a malformed one is not looked up", async () => {
    const a = await startMeeting(actorOf(agent), { ticketId: null, title: "", inviteCustomer: false, agentIds: [] });
    const b = await startMeeting(actorOf(agent), { ticketId: null, title: "", inviteCustomer: false, agentIds: [] });
    if (!a.ok || !b.ok) throw new Error("not started");
    expect(validToken(a.token)).toBe(true);
    expect(a.token).not.toBe(b.token);
    expect((await meetingByToken(a.token))?.hostUserId).toBe(agent.id);
    expect(await meetingByToken("../../etc/passwd")).toBeUndefined();
    expect(await meetingByToken(a.token.slice(0, -1))).toBeUndefined();
  });

  it("lets the conversation's agents in, not an agent who cannot read it; a shell meeting lets in whom the host invited", async () => {
    const started = await startMeeting(actorOf(agent), { ticketId: ticket.id, title: "Parcel", inviteCustomer: false, agentIds: [] });
    if (!started.ok) throw new Error("not started");
    const meeting = (await meetingByToken(started.token))!;
    expect(await agentMayJoin(meeting, agent)).toBe(true);
    expect(await agentMayJoin(meeting, admin)).toBe(true);
    expect(await agentMayJoin(meeting, outsider)).toBe(false);
    // the outsider cannot start one for that conversation either
    expect(await startMeeting(actorOf(outsider), { ticketId: ticket.id, title: "", inviteCustomer: false, agentIds: [] })).toEqual({
      ok: false,
      errors: { ticket: "plugin_meeting.errors.ticket" },
    });

    const shell = await startMeeting(actorOf(admin), { ticketId: null, title: "Stand-up", inviteCustomer: false, agentIds: [outsider.id] });
    if (!shell.ok) throw new Error("not started");
    const standUp = (await meetingByToken(shell.token))!;
    expect(await agentMayJoin(standUp, outsider)).toBe(true);
    expect(await agentMayJoin(standUp, agent)).toBe(false);
  });

  it("logs the start and, at the end, who took part in the conversation; the ended meeting refuses everyone", async () => {
    const started = await startMeeting(actorOf(agent), { ticketId: ticket.id, title: "", inviteCustomer: true, agentIds: [] });
    if (!started.ok || !started.guestKey) throw new Error("not started");
    const meeting = (await meetingByToken(started.token))!;
    let texts = await systemTexts(ticket.id);
    expect(texts.at(-1)).toMatchObject({ text: "plugin_meeting.system.started", by: agent.name, values: { link: `/meeting/${started.token}` } });
    await recordAttendee(meeting.id, agent.name);
    await recordAttendee(meeting.id, "Mei Tan");
    await recordAttendee(meeting.id, agent.name);
    expect(await endMeeting(meeting.id, agent)).toBe(true);
    expect(await endMeeting(meeting.id, agent)).toBe(false);
    texts = await systemTexts(ticket.id);
    expect(texts.at(-1)).toMatchObject({ text: "plugin_meeting.system.ended", values: { people: `${agent.name}, Mei Tan`, minutes: "1" } });
    expect(texts.filter((x) => x.text === "plugin_meeting.system.ended")).toHaveLength(1);
    // the customer's unused link, after the end
    const ended = (await meetingByToken(started.token))!;
    expect(await guestInvite(ended, started.guestKey)).toEqual({ ok: false, reason: "ended" });
    const page = await call(meetingLoader, new Request(`http://localhost/meeting/${started.token}?k=${started.guestKey}`), { token: started.token });
    expect(page.status).toBe(410);
    expect(await page.json()).toMatchObject({ state: "refused", reason: "ended" });
  });

  it("binds a guest's one-time link to the first browser: a second use is refused, a wrong key is not invited", async () => {
    const started = await startMeeting(actorOf(agent), { ticketId: ticket.id, title: "", inviteCustomer: true, agentIds: [] });
    if (!started.ok || !started.guestKey) throw new Error("not started");
    const meeting = (await meetingByToken(started.token))!;
    expect(await guestInvite(meeting, started.guestKey)).toMatchObject({ ok: true, name: "Mei Tan" });
    const first = await claimGuestLink(meeting, started.guestKey);
    if (!first.ok) throw new Error("refused");
    expect(await claimGuestLink(meeting, started.guestKey)).toEqual({ ok: false, reason: "used" });
    expect(await guestOf(meeting, first.inviteId, first.secret)).toEqual({ id: first.inviteId, name: "Mei Tan" });
    expect(await guestOf(meeting, first.inviteId, started.guestKey)).toBeUndefined();
    // the pages: "Join as" for an unused link, a clear refusal otherwise
    const url = (q: string) => new Request(`http://localhost/meeting/${started.token}${q}`);
    const used = await call(meetingLoader, url(`?k=${started.guestKey}`), { token: started.token });
    expect(used.status).toBe(403);
    expect(await used.json()).toMatchObject({ reason: "used" });
    const nobody = await call(meetingLoader, url(""), { token: started.token });
    expect(nobody.status).toBe(403);
    expect(await nobody.json()).toMatchObject({ reason: "notInvited" });
    const wrong = await call(meetingLoader, url(`?k=${"A".repeat(32)}`), { token: started.token });
    expect(await wrong.json()).toMatchObject({ reason: "notInvited" });
    const unknown = await call(meetingLoader, new Request(`http://localhost/meeting/${"B".repeat(32)}`), { token: "B".repeat(32) });
    expect(unknown.status).toBe(404);
    // an agent who may not read the conversation gets the same refusal
    const cookie = await sessionCookie().serialize((await createSession(outsider.id)).token);
    const outsiderPage = await call(meetingLoader, new Request(`http://localhost/meeting/${started.token}`, { headers: { Cookie: cookie } }), {
      token: started.token,
    });
    expect(outsiderPage.status).toBe(403);
  });

  it("answers a guest's Join with the browser's cookie, and the page lets that browser in", async () => {
    const started = await startMeeting(actorOf(agent), { ticketId: ticket.id, title: "", inviteCustomer: true, agentIds: [] });
    if (!started.ok || !started.guestKey) throw new Error("not started");
    const joined = await call(
      meetingAction,
      new Request(`http://localhost/meeting/${started.token}`, { method: "POST", body: new URLSearchParams({ intent: "claim", k: started.guestKey }) }),
      { token: started.token },
    );
    expect(joined.status).toBe(302);
    const cookie = joined.headers.get("Set-Cookie")!.split(";")[0];
    const page = await call(meetingLoader, new Request(`http://localhost/meeting/${started.token}`, { headers: { Cookie: cookie } }), { token: started.token });
    expect(await page.json()).toMatchObject({ state: "in", role: "guest", name: "Mei Tan", turn: false });
    // another browser with the same link
    const again = await call(
      meetingAction,
      new Request(`http://localhost/meeting/${started.token}`, { method: "POST", body: new URLSearchParams({ intent: "claim", k: started.guestKey }) }),
      { token: started.token },
    );
    expect(again.headers.get("Set-Cookie")).toBeNull();
  });

  describe("over socket.io", () => {
    let server: http.Server;
    let io: Server;
    let url: string;
    const open: Socket[] = [];
    beforeAll(async () => {
      delete process.env.JANUS_URL; // mesh
      server = http.createServer();
      io = new Server(server);
      // as server.ts does for agents: the user from the session (here: from the handshake)
      io.use((socket, next) => {
        socket.data.userId = Number(socket.handshake.auth.userId);
        next();
      });
      io.on("connection", (socket) => attachSocket(socket, io));
      attachNamespaces(io);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      for (const s of open) s.close();
      await new Promise((resolve) => io.close(resolve));
    });
    const socketOf = async (userId: number) => {
      const s = connect(url, { transports: ["websocket"], auth: { userId }, reconnection: false });
      open.push(s);
      await new Promise<void>((resolve) => s.on("connect", resolve));
      return s;
    };
    const ask = <T>(s: Socket, event: string, payload: unknown) => new Promise<T>((resolve) => s.emit(event, payload, resolve));

    it("20 people joining one mesh meeting: three get in, the others hear it is full; presence counts and signals flow", async () => {
      const { db, schema } = t.handle;
      const people: UserRow[] = [];
      for (let i = 0; i < 20; i++) {
        const [u] = await db
          .insert(schema.users)
          .values({
            username: `m${i}-${dialect}`,
            name: `Member ${i}`,
            email: `m${i}-${dialect}@example.com`,
            type: "agent",
            departmentId: null,
            passwordHash: "x",
            createdAt: Date.now(),
          } as typeof schema.users.$inferInsert)
          .returning();
        people.push(u as UserRow);
      }
      const started = await startMeeting(actorOf(admin), { ticketId: null, title: "All hands", inviteCustomer: false, agentIds: people.map((p) => p.id) });
      if (!started.ok) throw new Error("not started");
      const sockets = await Promise.all(people.map((p) => socketOf(p.id)));
      const stranger = await socketOf(agent.id);
      expect(await ask(stranger, "joinMeeting", { token: started.token })).toEqual({ ok: false, reason: "notInvited" });
      expect(await ask(stranger, "getMeetingCount", { token: started.token })).toEqual({ ok: false });
      const heard: unknown[] = [];
      sockets[0].on("meetingPeerJoined", (p) => heard.push(p));
      const answers: { ok: boolean; reason?: string; limit?: number; mode?: string; peers?: unknown[]; peerId?: number }[] = [];
      for (const s of sockets) answers.push(await ask(s, "joinMeeting", { token: started.token }));
      expect(answers.filter((a) => a.ok)).toHaveLength(3);
      expect(answers.slice(0, 3).every((a) => a.ok && a.mode === "mesh")).toBe(true);
      expect(answers[2].peers).toHaveLength(2);
      expect(answers.slice(3).every((a) => !a.ok && a.reason === "full" && a.limit === 3)).toBe(true);
      expect(await ask(sockets[10], "getMeetingCount", { token: started.token })).toEqual({ ok: true, count: 3, ended: false });
      await new Promise((r) => setTimeout(r, 100));
      expect(heard).toEqual([expect.objectContaining({ name: "Member 1" }), expect.objectContaining({ name: "Member 2" })]);
      // a signal from the newest to the first is relayed with who sent it; not to someone outside
      const signal = new Promise((resolve) => sockets[0].once("meetingSignal", resolve));
      sockets[2].emit("meetingSignal", { to: answers[0].peerId, description: { type: "offer", sdp: "v=0" } });
      expect(await signal).toEqual({ from: answers[2].peerId, name: "Member 2", description: { type: "offer", sdp: "v=0" } });
      // one leaves: the fourth gets in
      const left = new Promise((resolve) => sockets[0].once("meetingPeerLeft", resolve));
      expect(await ask(sockets[1], "leaveMeeting", {})).toEqual({ ok: true });
      expect(await left).toEqual({ peerId: answers[1].peerId });
      expect(await ask(sockets[3], "joinMeeting", { token: started.token })).toMatchObject({ ok: true });
      // trickle: each ICE candidate is relayed on its own as the browser finds it; junk is not
      const candidate = { candidate: "candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host", sdpMid: "0", sdpMLineIndex: 0 };
      const relayed = new Promise((resolve) => sockets[0].once("meetingSignal", resolve));
      sockets[3].emit("meetingSignal", { to: answers[0].peerId, candidate: { candidate: 42 } });
      sockets[3].emit("meetingSignal", { to: answers[0].peerId, candidate: { ...candidate, usernameFragment: "x", extra: "<b>" } });
      expect(await relayed).toEqual({ from: expect.any(Number), name: "Member 3", candidate });
    }, 60_000);

    describe.skipIf(!janusPresent())("past the mesh limit, with Janus running", () => {
      let media: MediaServers | undefined;
      const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-meeting-janus-"));
      beforeAll(async () => {
        media = await startMediaServers({ runDir, janusPort: await freePort() });
        process.env.JANUS_URL = media.janusUrl;
      }, 30_000);
      afterAll(async () => {
        delete process.env.JANUS_URL;
        await media?.stop();
        fs.rmSync(runDir, { recursive: true, force: true });
      });

      it("starts direct; the fourth person moves it to Janus, the three inside told and still in; it stays there", async () => {
        const { db, schema } = t.handle;
        const people: UserRow[] = [];
        for (let i = 0; i < 5; i++) {
          const [u] = await db
            .insert(schema.users)
            .values({
              username: `j${i}-${dialect}`,
              name: `Janus ${i}`,
              email: `j${i}-${dialect}@example.com`,
              type: "agent",
              departmentId: null,
              passwordHash: "x",
              createdAt: Date.now(),
            } as typeof schema.users.$inferInsert)
            .returning();
          people.push(u as UserRow);
        }
        const started = await startMeeting(actorOf(admin), { ticketId: null, title: "Grows", inviteCustomer: false, agentIds: people.map((p) => p.id) });
        if (!started.ok) throw new Error("not started");
        const sockets = await Promise.all(people.map((p) => socketOf(p.id)));
        const told = sockets.slice(0, 3).map((s) => new Promise((resolve) => s.once("meetingMode", resolve)));
        const answers: { ok: boolean; mode?: string; limit?: number }[] = [];
        for (const s of sockets.slice(0, 3)) answers.push(await ask(s, "joinMeeting", { token: started.token }));
        expect(answers.map((a) => a.mode)).toEqual(["mesh", "mesh", "mesh"]);
        const fourth = await ask<{ ok: boolean; mode: string; limit: number; peers: unknown[] }>(sockets[3], "joinMeeting", { token: started.token });
        expect(fourth).toMatchObject({ ok: true, mode: "sfu", limit: 12 });
        expect(fourth.peers).toHaveLength(3);
        expect(await Promise.all(told)).toEqual([{ mode: "sfu" }, { mode: "sfu" }, { mode: "sfu" }]);
        expect(await ask(sockets[0], "getMeetingCount", { token: started.token })).toEqual({ ok: true, count: 4, ended: false });
        expect((await meetingByToken(started.token))?.media).toBe("sfu");
        // fewer people again: still Janus (no way back), and a newcomer is told so
        await ask(sockets[3], "leaveMeeting", {});
        await ask(sockets[2], "leaveMeeting", {});
        expect(await ask(sockets[4], "joinMeeting", { token: started.token })).toMatchObject({ ok: true, mode: "sfu" });
      }, 60_000);
    });
  });
});
