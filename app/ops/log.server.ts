// Structured logs: one pino logger for the process, JSON lines on stdout. A line logged while an
// HTTP request, a socket event or a job runs carries its ids (reqId; socketId and userId; jobId and
// jobKind) from an AsyncLocalStorage context, so the lines of one request can be found together.
// Secrets are redacted by field name wherever they sit; message bodies are never handed to the
// logger (the redaction of body, html and raw fields is a net, not the rule).
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { pino, type Logger } from "pino";

export interface LogContext {
  reqId?: string;
  socketId?: string;
  userId?: number;
  jobId?: number;
  jobKind?: string;
}

/** Field names whose values never reach a log line, at any depth up to three. */
const SECRET_FIELDS = ["authorization", "Authorization", "cookie", "Cookie", "set-cookie", "password", "token", "secret", "accessToken", "refreshToken"];
const BODY_FIELDS = ["body", "html", "raw"];

export const REDACTED_PATHS = [...SECRET_FIELDS, ...BODY_FIELDS].flatMap((field) => {
  const key = /^\w+$/.test(field) ? `.${field}` : `["${field}"]`;
  return [key, `*${key}`, `*.*${key}`, `*.*.*${key}`].map((p) => (p.startsWith(".") ? p.slice(1) : p));
});

/** LOG_LEVEL (default info; silent in unit tests unless LOG_LEVEL says otherwise); a misspelt one is info. */
export function logLevel(env: Record<string, string | undefined> = process.env) {
  const wanted = env.LOG_LEVEL?.trim().toLowerCase() || (env.VITEST ? "silent" : "info");
  return wanted === "silent" || wanted in pino.levels.values ? wanted : "info";
}

/** The process's logger, writing to `destination` (stdout unless a test gives one). */
export function createLogger(context: AsyncLocalStorage<LogContext>, destination?: pino.DestinationStream, level = logLevel()): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: () => context.getStore() ?? {},
  };
  return destination ? pino(options, destination) : pino(options);
}

interface Shared {
  context: AsyncLocalStorage<LogContext>;
  logger: Logger;
  /** Where lines go: stdout, written synchronously (nothing is lost on exit); captureLogs swaps it. */
  out: pino.DestinationStream;
}

// kept on globalThis: server.ts and the Remix build are two bundles with their own copy of this file
const g = globalThis as unknown as { __omnideskLog?: Shared };
const shared = (g.__omnideskLog ??= (() => {
  const context = new AsyncLocalStorage<LogContext>();
  const self: Shared = { context, out: pino.destination({ dest: 1, sync: true }), logger: undefined as unknown as Logger };
  self.logger = createLogger(context, { write: (line) => self.out.write(line) });
  return self;
})());

export const log: Logger = shared.logger;

/** Runs `fn` with `fields` added to every line logged meanwhile (also in what it starts). */
export function withLogContext<T>(fields: LogContext, fn: () => T): T {
  return shared.context.run({ ...shared.context.getStore(), ...fields }, fn);
}

export const logContext = (): LogContext => shared.context.getStore() ?? {};

/** The caller's request id when it is a sane one (a proxy's), else a new one. */
export function requestId(incoming: string | undefined) {
  return incoming && /^[\w.:@-]{1,128}$/.test(incoming) ? incoming : randomUUID();
}

/** The `log` option of background workers: a message and, on a failure, the error. */
export type LogFn = (message: string, error?: unknown) => void;

/** A LogFn writing warnings of one component (smtp, jobs, ...). */
export const warnings =
  (component: string): LogFn =>
  (message, error) =>
    log.warn(error === undefined ? { component } : { component, err: error }, message);

/** Tests: the lines logged from now on (at `level` and above), parsed, instead of on stdout. */
export function captureLogs(level = "debug") {
  const lines: Record<string, unknown>[] = [];
  const before = { out: shared.out, level: shared.logger.level };
  shared.out = { write: (line: string) => void lines.push(JSON.parse(line)) };
  shared.logger.level = level;
  return {
    lines,
    restore() {
      shared.out = before.out;
      shared.logger.level = before.level;
    },
  };
}
