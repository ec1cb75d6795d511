// The floor for bench/realtime.ts: a bare socket.io relay on the same machine. A socket joins the
// room it names; POST /post {room, department} fans a message out as the product does (the
// message to the room, a small delta to the department), stamped with the time it was received.
import http from "node:http";
import { Server } from "socket.io";

const port = Number(process.env.PORT || 3652);
let seq = 0;
const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/healthz") return void res.end("ok");
  let body = "";
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    const { room, department, ticketId, text } = JSON.parse(body || "{}");
    const at = Date.now();
    const id = ++seq;
    io.to(room).emit("newMessage", { ticketId, messageIds: [id], messages: [{ id, body: text, createdAt: at }] });
    io.to(department).emit("channelDataUpdated", { ticketId, messageIds: [id], lastMessage: text, updatedAt: at, by: "" });
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ id, at }));
  });
});
const io = new Server(server, { serveClient: false });
io.on("connection", (socket) => {
  socket.join(String(socket.handshake.auth.department ?? "department"));
  socket.on("joinRoom", (payload: { ticketId: number }, ack?: (a: { ok: boolean }) => void) => {
    socket.join(`ticket:${payload.ticketId}`);
    ack?.({ ok: true });
  });
});
server.listen(port, () => console.log(`relay on ${port}`));
process.on("SIGTERM", () => io.close(() => process.exit(0)));
