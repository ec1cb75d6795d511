// The running encryption client of this page (set by the shell layer), for the keys page to ask it
// to fetch again once a key was set up or restored.
import type { E2eeClient } from "./browser-client";

let current: E2eeClient | null = null;
export const e2eeClient = () => current;
export function setE2eeClient(client: E2eeClient | null) {
  current = client;
}
