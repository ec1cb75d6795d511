// A stand-in for a job worker process (tests/unit/job-workers.test.ts): an io without a server on
// the IPC adapter, doing what a job does with realtime (an emit to a room, fetchSockets and an
// emit to one socket), then reporting what it saw.
import { Server } from "socket.io";
import { ipcAdapter, parentLink } from "../../app/ops/ipc-adapter.server";

const io = new Server();
io.adapter(ipcAdapter(parentLink()));
process.on("message", async (value) => {
  const command = value as { tag?: string; room?: string };
  if (command.tag !== "test:publish") return;
  io.to(command.room!).emit("news", { from: "worker" });
  const sockets = await io.in(command.room!).fetchSockets();
  for (const socket of sockets) socket.emit("personal", { userId: socket.data.userId });
  process.send!({ tag: "test:done", seen: sockets.map((s) => s.data.userId) });
});
process.on("disconnect", () => process.exit(0));
process.send!({ tag: "test:ready" });
