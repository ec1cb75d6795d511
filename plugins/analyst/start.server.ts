// The analyst plugin's background work: every two seconds each node reads customers' messages
// after its mark for the admins' watched keywords (alerts.server.ts). Off the request path; the
// hits' key makes a message alert once however many nodes look.
import { warnings } from "~/ops/log.server";
import { repeatEvery } from "~/ops/repeat.server";
import { checkMessages, startMark } from "./alerts.server";

const LOOK_MS = 2_000;

export async function start() {
  const log = warnings("analyst");
  let mark: number | null = null;
  const look = async () => {
    mark ??= await startMark();
    // a backlog is read a batch at a time until it is done
    for (let i = 0; i < 20; i++) {
      const next = await checkMessages(mark);
      if (next.mark === mark) break;
      mark = next.mark;
    }
  };
  return repeatEvery(LOOK_MS, look, (error) => log("analyst: looking for trade alerts failed", error));
}
