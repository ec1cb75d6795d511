// A server process of our own (the built one: `npm run build` first), for tests and benches that
// stop, restart or multiply it.
import fs from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";

/** `log`: a file descriptor for its JSON log lines (stdout), else they are dropped. */
export function startServer(env: Record<string, string>, log?: number): ChildProcess {
  if (!fs.existsSync("build/server.js")) throw new Error("build/server.js is missing: run `npm run build` first");
  // SERVER_NODE_ARGS: extra node flags for the server (a bench's --cpu-prof)
  const nodeArgs = (process.env.SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  return spawn(process.execPath, [...nodeArgs, "build/server.js"], { env: { ...process.env, ...env }, stdio: ["ignore", log ?? "ignore", "inherit"] });
}

export async function waitHealthy(base: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${base} did not become healthy`);
}

/** Whether the process has ended: with an exit code, or by a signal (a SIGKILL leaves exitCode null). */
export const hasExited = (server: ChildProcess) => server.exitCode !== null || server.signalCode !== null;

/** Resolves once the process has ended (at once if it already has: its "exit" event is long gone). */
export function exited(server: ChildProcess) {
  if (hasExited(server)) return Promise.resolve();
  return new Promise<void>((resolve) => server.once("exit", () => resolve()));
}

/** SIGTERM (the server drains), then SIGKILL if it has not ended within `graceMs`. */
export async function stopServer(server: ChildProcess, graceMs = 30_000) {
  if (hasExited(server)) return;
  const ended = exited(server);
  server.kill("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), graceMs)));
  const outcome = await Promise.race([ended, late]);
  clearTimeout(timer);
  if (outcome === "late" && !hasExited(server)) {
    server.kill("SIGKILL");
    await ended;
  }
}
