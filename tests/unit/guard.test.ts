// The plugin gate: logged-out visitors go to /, disabled plugins answer 404, trial accounts go home.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import { guardPluginRoute } from "~/context.server";
import { sessionCookie } from "~/cookies.server";
import { createSession } from "~/accounts/sessions.server";
import { listEditions, saveEdition } from "~/models/editions.server";
import { setSetting } from "~/models/settings.server";

let t: TestDb;
let adminCookie: string;
beforeAll(async () => {
  t = await createTestDb("sqlite");
  await seedDemo(t.handle, { tickets: 5 });
  adminCookie = await sessionCookie().serialize((await createSession(1)).token);
});
afterAll(async () => t?.cleanup());

const get = (path: string, cookie?: string, host = "localhost") =>
  new Request(`http://${host}${path}`, { headers: { Host: host, ...(cookie ? { Cookie: cookie } : {}) } });

async function outcome(request: Request) {
  try {
    const { plugin } = await guardPluginRoute(request);
    return `ok:${plugin.id}`;
  } catch (thrown) {
    const res = thrown as Response;
    return res.status === 302 ? `redirect:${res.headers.get("Location")}` : `status:${res.status}`;
  }
}

describe("guardPluginRoute", () => {
  it("sends logged-out visitors of protected plugin pages to /", async () => {
    expect(await outcome(get("/ticket/5"))).toBe("redirect:/");
    expect(await outcome(get("/analyst_intelligence"))).toBe("redirect:/");
  });

  it("lets visitors reach public plugin pages and sends users home from guest-only ones", async () => {
    expect(await outcome(get("/dashboard/abc"))).toBe("ok:reports");
    expect(await outcome(get("/pricing"))).toBe("ok:payment");
    expect(await outcome(get("/pricing", adminCookie))).toBe("redirect:/");
  });

  it("answers 404 for a plugin the edition does not enable", async () => {
    expect(await outcome(get("/analyst_intelligence", adminCookie))).toBe("status:404");
    expect(await outcome(get("/analyst_intelligence", adminCookie, "trade.example.com"))).toBe("ok:analyst");
    const edition = (await listEditions()).find((e) => e.id === "default")!;
    await saveEdition(
      "default",
      edition.enabled.filter((p) => p !== "kanban"),
      edition.hosts,
    );
    expect(await outcome(get("/kanban", adminCookie))).toBe("status:404");
    await saveEdition("default", edition.enabled, edition.hosts);
    expect(await outcome(get("/kanban", adminCookie))).toBe("ok:kanban");
  });

  it("keeps trial accounts to the base pages", async () => {
    await setSetting("account_type", "0");
    expect(await outcome(get("/ticket", adminCookie))).toBe("redirect:/");
    expect(await outcome(get("/plan", adminCookie))).toBe("ok:payment");
    await setSetting("account_type", "1");
    expect(await outcome(get("/ticket", adminCookie))).toBe("ok:tickets");
  });
});
