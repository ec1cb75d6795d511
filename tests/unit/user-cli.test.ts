// `npm run user:create` (app/accounts/user-cli.ts), run as a process on a temporary data dir: the
// first user of an empty install is an admin and brings the workspace; later ones join it; each
// gets a one-time set-password link and no usable password; duplicates are refused with exit 1.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-cli-"));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));
// each run starts a node process that compiles the CLI with tsx: seconds apiece on a busy runner
vi.setConfig({ testTimeout: 180_000 });

function run(...args: string[]) {
  const result = spawnSync(process.execPath, ["--import", "tsx", "app/accounts/user-cli.ts", ...args], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", BASE_URL: "https://desk.example.com/", NODE_ENV: "production" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

const query = <T>(sql: string) => {
  const db = new Database(path.join(dataDir, "omnidesk.sqlite"), { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
};

describe("user:create", () => {
  it("on an empty install refuses a first user who is not an admin, and writes nothing", () => {
    const { code, err } = run("--username", "amy", "--email", "amy@example.com");
    expect(code).toBe(1);
    expect(err).toMatch(/must be an admin: add --admin/);
    expect(query("select id from users")).toEqual([]);
  });

  it("refuses bad input with the rule it breaks", () => {
    expect(run("--admin", "--username", "two words", "--email", "a@example.com")).toMatchObject({ code: 1, err: expect.stringMatching(/no spaces/) });
    expect(run("--admin", "--username", "x".repeat(500), "--email", "a@example.com")).toMatchObject({ code: 1, err: expect.stringMatching(/3 to 32/) });
    expect(run("--admin", "--username", "fay", "--email", "nope")).toMatchObject({ code: 1, err: expect.stringMatching(/email address is not valid/) });
    expect(run("--admin", "--username", "fay")).toMatchObject({ code: 1, err: expect.stringMatching(/--email is required/) });
    expect(run("--admin", "--bogus")).toMatchObject({ code: 1, err: expect.stringMatching(/Usage/) });
  });

  it("makes the first admin with the workspace, random public links and a set-password link", () => {
    const { code, out } = run("--admin", "--username", "Fay", "--email", "Fay@Example.com", "--name", "Fay Founder", "--workspace", "Acme");
    expect(code).toBe(0);
    const link = out.match(/https:\/\/desk\.example\.com\/invite\/([\w-]{40,})/);
    expect(link).not.toBeNull();
    expect(out).toMatch(/Created the workspace "Acme"/);
    const livechat = out.match(/\/livechat\/([\w-]+)/)![1];
    expect(livechat).not.toBe("demo");
    expect(query("select username, type, email, password_hash as hash from users")).toEqual([
      { username: "Fay", type: "admin", email: "fay@example.com", hash: "" },
    ]);
    expect(query<{ token: string }>("select token from public_tokens where kind = 'livechat'")).toEqual([{ token: livechat }]);
    expect(query("select value from settings where key = 'admin_name'")).toEqual([{ value: "Acme" }]);
    expect(query("select purpose, user_id as userId, used_at as usedAt from one_time_tokens")).toEqual([{ purpose: "invite", userId: 1, usedAt: null }]);
  });

  it("refuses a duplicate username (any case) or email with exit code 1", () => {
    expect(run("--username", "FAY", "--email", "other@example.com")).toMatchObject({ code: 1, err: expect.stringMatching(/username is already taken/) });
    expect(run("--username", "bob", "--email", "FAY@example.com")).toMatchObject({ code: 1, err: expect.stringMatching(/email already exists/) });
    expect(query("select id from users")).toHaveLength(1);
  });

  it("adds an agent to the existing workspace", () => {
    const { code, out } = run("--username", "bob", "--email", "bob@example.com");
    expect(code).toBe(0);
    expect(out).toMatch(/Created agent "bob"/);
    expect(out).not.toMatch(/workspace/);
    expect(query("select username, type from users order by id")).toEqual([
      { username: "Fay", type: "admin" },
      { username: "bob", type: "agent" },
    ]);
    expect(query("select kind from public_tokens")).toHaveLength(3);
  });
});
