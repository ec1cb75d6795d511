// The cookie signing secret (also the key of sealed channel secrets, app/secrets.server.ts), shared
// by the web node and its job worker processes: from the environment, or generated once and kept
// in DATA_DIR.
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { dataDir } from "@db/client";

export function settleSessionSecret(production = process.env.NODE_ENV === "production") {
  // links in mail (invites, password resets) and the single sign-on address must not follow a
  // forged Host header
  if (production && !process.env.BASE_URL)
    throw new Error("BASE_URL must be set when NODE_ENV=production (the address users reach, e.g. https://desk.example.com)");
  if (process.env.SESSION_SECRET) return;
  if (production) throw new Error("SESSION_SECRET must be set when NODE_ENV=production");
  const file = path.join(dataDir(), "session-secret");
  fs.mkdirSync(dataDir(), { recursive: true });
  if (!fs.existsSync(file)) fs.writeFileSync(file, randomBytes(32).toString("hex"), { mode: 0o600 });
  process.env.SESSION_SECRET = fs.readFileSync(file, "utf8").trim();
}
