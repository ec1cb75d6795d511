// At server start: the demo workspace gets its catalogue (demo.server.ts); nothing runs after.
import { log } from "~/ops/log.server";
import { seedDemoCatalogue } from "./demo.server";

export async function start() {
  const added = await seedDemoCatalogue();
  if (added) log.info(`Added the demo product catalogue (${added} products).`);
  return async () => undefined;
}
