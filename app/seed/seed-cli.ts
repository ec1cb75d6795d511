// npm run seed -- [--tickets N]: seeds an empty database, or appends N tickets to a seeded one.
import { parseArgs } from "node:util";
import { getDb } from "../../db/client";
import { isEmpty, seedDemo, seedTickets } from "~/seed/seed";

const { values } = parseArgs({ options: { tickets: { type: "string", default: "2000" } } });
const count = Number(values.tickets);
if (!Number.isInteger(count) || count < 0) throw new Error("--tickets takes a whole number");

const handle = getDb();
await handle.migrate();
const started = Date.now();
const log = (m: string) => console.log(`${m} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
if (await isEmpty(handle)) await seedDemo(handle, { tickets: count, log });
else await seedTickets(handle, { count, now: Date.now(), seed: Date.now(), log });
log(`seeded ${count} tickets into ${handle.dialect}`);
await handle.close();
