// bench:calls: the call server under load on this machine. Starts Kamailio and rtpengine on
// loopback (plugins/calls/sip/servers.ts) with a stand-in for the product's hooks (HA1 of one
// password for every extension; call events answered at once, so the product's own write time is
// not in these figures), then:
// 1. N concurrent REGISTERs with digest auth (tests/support/sip-client.ts): REGISTER to 200 p50/p95;
// 2. a drop: every socket gone, all register again at once: time until all are registered (p95);
// 3. C concurrent authenticated calls from sipp (Debian sip-tester; one caller extension, as this sipp
//    has no per-call credentials) to C extensions whose contact is a
//    sipp UAS, media anchored in rtpengine: INVITE (with credentials) to 200 OK p50/p95 (sipp rtd);
// 4. Kamailio's and rtpengine's CPU time and resident memory over the run.
// Figures are printed; nothing is asserted. REGISTRATIONS=50 CALLS=20 by default.
import { spawn, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, missingBinariesMessage, sipBinariesPresent, startSipServers } from "../../plugins/calls/sip/servers";
import { register } from "../../tests/support/sip-client";

const REGISTRATIONS = Number(process.env.REGISTRATIONS || 50);
const CALLS = Number(process.env.CALLS || 20);
const PASSWORD = "bench-sip-pass";
const DOMAIN = "omnidesk.local";
const here = path.dirname(fileURLToPath(import.meta.url));

if (!sipBinariesPresent()) {
  console.log(missingBinariesMessage());
  process.exit(1);
}
const sipp = fs.existsSync("/usr/bin/sipp") ? "/usr/bin/sipp" : null;

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
};
const ms = (v: number) => `${v.toFixed(1)} ms`;

// the product's hooks, stood in
let events = 0;
const hooks = http.createServer((req, res) => {
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    if (req.url?.endsWith("/event")) {
      events++;
      res.end("stored");
      return;
    }
    const p = new URLSearchParams(body);
    res.end(
      createHash("md5")
        .update(`${p.get("user")}:${p.get("realm")}:${PASSWORD}`)
        .digest("hex"),
    );
  });
});
const hookPort = await freePort();
await new Promise<void>((r) => hooks.listen(hookPort, "127.0.0.1", r));
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-sip-"));
const servers = await startSipServers({ runDir, authUrl: `http://127.0.0.1:${hookPort}/hooks/sip/auth`, hookSecret: "bench", pikeDensity: 100000 });

/** CPU seconds and resident memory (MB) of the Kamailio and rtpengine processes this bench started (from /proc). */
function usage() {
  const rows = execFileSync("ps", ["-e", "-o", "pid=,ppid=,comm="])
    .toString()
    .trim()
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .map(([pid, ppid, comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm }));
  const mains = rows.filter((r) => r.ppid === process.pid && (r.comm === "kamailio" || r.comm === "rtpengine")).map((r) => r.pid);
  const ours = rows.filter((r) => mains.includes(r.pid) || mains.includes(r.ppid)).map((r) => r.pid);
  let cpu = 0;
  let rssKb = 0;
  for (const pid of ours) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      cpu += (Number(fields[11]) + Number(fields[12])) / 100;
      rssKb += Number(fs.readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return { cpu, rssMb: rssKb / 1024, processes: ours.length };
}

try {
  const before = usage();
  const started = Date.now();
  const users = Array.from({ length: REGISTRATIONS }, (_, i) => String(5000 + i));

  // 1. concurrent registrations
  const timed = await Promise.all(
    users.map(async (user) => {
      const t0 = performance.now();
      const r = await register({ host: servers.listen, port: servers.sipPort, domain: DOMAIN, user, password: PASSWORD, timeoutMs: 10000 });
      return { ok: r.status === 200, ms: performance.now() - t0 };
    }),
  );
  const regOk = timed.filter((t) => t.ok).length;
  console.log(
    `registrations: ${regOk}/${REGISTRATIONS} ok, REGISTER to 200 p50 ${ms(
      pct(
        timed.map((t) => t.ms),
        50,
      ),
    )}, p95 ${ms(
      pct(
        timed.map((t) => t.ms),
        95,
      ),
    )}`,
  );

  // 2. a drop: all phones come back at once (a network blip); time from the drop until each is registered
  const drop = performance.now();
  const again = await Promise.all(
    users.map(async (user) => {
      const r = await register({ host: servers.listen, port: servers.sipPort, domain: DOMAIN, user, password: PASSWORD, timeoutMs: 10000 });
      return { ok: r.status === 200, ms: performance.now() - drop };
    }),
  );
  console.log(
    `re-register after a drop: ${again.filter((t) => t.ok).length}/${REGISTRATIONS} ok, p95 ${ms(
      pct(
        again.map((t) => t.ms),
        95,
      ),
    )} (the softphone waits 1.5 s before it tries, so add 1.5 s)`,
  );

  // 3. concurrent calls: callees are registered at a sipp UAS, callers are sipp UAC with digest auth
  if (!sipp) console.log("calls: sipp is not installed (apt-get install sip-tester); skipped");
  else {
    const uasPort = await freePort("udp");
    const uas = spawn(sipp, ["-sf", path.join(here, "uas.xml"), "-i", "127.0.0.1", "-p", String(uasPort), "-nostdin"], { stdio: "ignore" });
    const callees = Array.from({ length: CALLS }, (_, i) => String(6000 + i));
    await Promise.all(
      callees.map((user) => register({ host: servers.listen, port: servers.sipPort, domain: DOMAIN, user, password: PASSWORD, contactPort: uasPort })),
    );
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "omnidesk-bench-sipp-"));
    const inf = path.join(work, "callers.csv");
    fs.writeFileSync(inf, ["SEQUENTIAL", ...callees.map((callee) => `${callee};x`)].join("\n") + "\n");
    const uacPort = await freePort("udp");
    const t0 = Date.now();
    await new Promise<void>((resolve) => {
      const uac = spawn(
        sipp,
        [
          `${servers.listen}:${servers.sipPort}`,
          "-sf",
          path.join(here, "uac.xml"),
          "-inf",
          inf,
          "-s",
          users[0],
          "-au",
          users[0],
          "-ap",
          PASSWORD,
          "-i",
          "127.0.0.1",
          "-p",
          String(uacPort),
          "-m",
          String(CALLS),
          "-l",
          String(CALLS),
          "-r",
          String(CALLS),
          "-rp",
          "1000",
          "-trace_rtt",
          "-rtt_freq",
          "1",
          "-trace_err",
          ...(process.env.BENCH_DEBUG ? ["-trace_msg"] : []),
          "-timeout",
          "60s",
          "-nostdin",
        ],
        { cwd: work, stdio: "ignore" },
      );
      uac.on("exit", () => resolve());
    });
    const rttFile = fs.readdirSync(work).find((f) => f.endsWith("_rtt.csv"));
    const rtts = rttFile
      ? fs
          .readFileSync(path.join(work, rttFile), "utf8")
          .trim()
          .split("\n")
          .slice(1)
          .map((l) => Number(l.split(";")[1]))
          .filter((v) => Number.isFinite(v))
      : [];
    const errFile = fs.readdirSync(work).find((f) => f.endsWith("_errors.log"));
    const errors = errFile ? fs.readFileSync(path.join(work, errFile), "utf8").trim() : "";
    console.log(
      `calls: ${rtts.length}/${CALLS} answered, ${CALLS} at once, INVITE to 200 OK p50 ${ms(pct(rtts, 50))}, p95 ${ms(pct(rtts, 95))}; all done in ${((Date.now() - t0) / 1000).toFixed(1)} s (2 s talk each)${errors ? `; sipp errors: ${errors.split("\n").slice(0, 3).join(" | ")}` : ""}`,
    );
    if (process.env.BENCH_DEBUG) console.log(servers.logs().slice(-6000));
    uas.kill("SIGTERM");
    if (process.env.BENCH_DEBUG) console.log(fs.readdirSync(work), rttFile && fs.readFileSync(path.join(work, rttFile), "utf8").slice(0, 400));
    if (process.env.BENCH_DEBUG)
      console.log(
        fs
          .readdirSync(work)
          .filter((f) => f.endsWith("_messages.log"))
          .map((f) => fs.readFileSync(path.join(work, f), "utf8").slice(-5000))
          .join(""),
      );
    fs.rmSync(work, { recursive: true, force: true });
  }
  const after = usage();
  const seconds = (Date.now() - started) / 1000;
  console.log(
    `server: Kamailio + rtpengine used ${(after.cpu - before.cpu).toFixed(2)} s of CPU in ${seconds.toFixed(1)} s, ${after.rssMb.toFixed(0)} MB resident (${after.processes} processes, shared pages counted in each); call events posted to the hook: ${events}`,
  );
} finally {
  await servers.stop();
  hooks.close();
  fs.rmSync(runDir, { recursive: true, force: true });
}
