// The build this server announces (newVersion on every socket, and on each page it renders).
// A release sets VERSION_ID and VERSION_NOTES in the server's environment when it deploys; without
// them, the build's own (app/version.ts). Pages rendered by an older build then offer to refresh.
import { VERSION } from "./version";

export function serverVersion(env: Record<string, string | undefined> = process.env): { id: number; description: string } {
  const id = Number(env.VERSION_ID);
  return Number.isInteger(id) && id > 0
    ? { id, description: env.VERSION_NOTES?.trim() || VERSION.description }
    : { id: VERSION.id, description: VERSION.description };
}
