// npm run restore -- ARCHIVE [--force]: puts a backup back into this install (DATABASE_URL,
// DATA_DIR). Stop the server first. Refuses a target that holds data unless --force, and an
// archive of the other database kind or whose checksums do not match, before changing anything.
import "dotenv/config";
import { parseArgs } from "node:util";
import { BackupError, command, restore, summary } from "./backup.server";

const USAGE = "usage: npm run restore -- ARCHIVE [--force]";

await command("restore", async () => {
  let args;
  try {
    args = parseArgs({ allowPositionals: true, options: { force: { type: "boolean", default: false } } });
  } catch (error) {
    throw new BackupError(`${(error as Error).message} (${USAGE})`);
  }
  if (args.positionals.length !== 1) throw new BackupError(`name one archive (${USAGE})`);
  const started = performance.now();
  const manifest = await restore({ archive: args.positionals[0], force: args.values.force });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  return `Restored the ${summary(manifest)} from ${args.positionals[0]} in ${seconds} s; the server applies newer migrations when it starts`;
});
