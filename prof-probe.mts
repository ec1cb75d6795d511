import Database from "better-sqlite3";
const stats = new Map<string, { n: number; ms: number }>();
const origPrepare = (Database as any).prototype.prepare;
(Database as any).prototype.prepare = function (sqlText: string) {
  const stmt = origPrepare.call(this, sqlText);
  for (const m of ["all", "get", "run", "raw"]) {
    const f = stmt[m];
    if (typeof f !== "function") continue;
    stmt[m] = function (...args: unknown[]) {
      const t0 = performance.now();
      const r = f.apply(this, args);
      const s = stats.get(sqlText) ?? { n: 0, ms: 0 };
      s.n++; s.ms += performance.now() - t0; stats.set(sqlText, s);
      return r === stmt ? this : r;
    };
  }
  return stmt;
};
const { openDatabase, setDb } = await import("./db/client");
const h = openDatabase("/tmp/omnidesk-bench/omnidesk.sqlite"); setDb(h);
const { findUserByUsername } = await import("./app/models/users.server");
const { loadListPanel } = await import("./app/models/list-panel.server");
const { listPresets } = await import("./app/models/filter-presets.server");
const { unreadCounts } = await import("./app/models/unread.server");
const { listNotifications } = await import("./app/models/notifications.server");
const { getWorkspace } = await import("./app/models/settings.server");
const { markViewed } = await import("./app/models/conversation.server");
const admin = (await findUserByUsername("admin"))!;
const N = 50;
const url = new URL("http://x/?status=4");
for (let i = 0; i < N; i++) {
  await getWorkspace();
  await markViewed(admin, "/");
  await loadListPanel(admin, url, "UTC");
  await listPresets(admin, "UTC");
  await unreadCounts(admin.id);
  await listNotifications(admin.id);
}
for (const [sqlText, s] of [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) console.log((s.ms / N).toFixed(2), "ms/req", s.n, sqlText.slice(0, 300));
