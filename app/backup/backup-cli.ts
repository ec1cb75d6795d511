// npm run backup -- [--out FILE.tar.gz | --out FOLDER]: the database, uploaded files and session
// secret of this install (DATABASE_URL, DATA_DIR) in one archive; safe while the server runs.
import "dotenv/config";
import { parseArgs } from "node:util";
import { backup, BackupError, command, summary } from "./backup.server";

const USAGE = "usage: npm run backup -- [--out FILE.tar.gz | --out FOLDER] (default folder: backups)";

await command("backup", async () => {
  let out: string;
  try {
    out = parseArgs({ options: { out: { type: "string", default: "backups" } } }).values.out;
  } catch (error) {
    throw new BackupError(`${(error as Error).message} (${USAGE})`);
  }
  const started = performance.now();
  const { file, manifest } = await backup({ out });
  return `Backed up the ${summary(manifest)} to ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s`;
});
