// Labels: the batch save on both dialects (validation texts, one transaction, create/update/delete).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { DEMO_LABELS, seedDemo } from "~/seed/seed";
import { LABEL_MESSAGES, listLabels, saveLabels, validateLabels, type Label } from "@plugins/tickets/labels.server";

const NOW = Date.UTC(2026, 10, 21, 12);
const SEEDED: Label[] = DEMO_LABELS.map((l, i) => ({ id: i + 1, ...l }));

const row = (overrides: Record<string, unknown> = {}) => ({ name: "Callback", color: "#112233", colorDark: "#aabbcc", level: 1, sla: 45, ...overrides });

describe("label validation", () => {
  const messageOf = (rows: unknown, del: unknown = []) => {
    const result = validateLabels(rows, del);
    return result.ok ? "ok" : result.message;
  };

  it("accepts a good batch, with numbers as text as a form sends them", () => {
    expect(messageOf([row(), row({ id: "3", level: "2", sla: "60" })], ["4"])).toBe("ok");
    const result = validateLabels(JSON.stringify([row({ color: "#ABCDEF", name: "  Trimmed  " })]), "[5]");
    expect(result).toMatchObject({ ok: true, deleteIds: [5], rows: [{ index: 0, row: { name: "Trimmed", color: "#abcdef", level: 1, sla: 45 } }] });
  });

  it("says so when any field is empty", () => {
    for (const field of ["name", "color", "colorDark", "level", "sla"]) {
      expect(messageOf([row({ [field]: "" })]), field).toBe("Please check all the fields are not empty.");
      expect(messageOf([row({ [field]: undefined })]), field).toBe("Please check all the fields are not empty.");
    }
    expect(messageOf([row({ name: "   " })])).toBe(LABEL_MESSAGES.empty);
  });

  it("wants whole numbers for the level and the SLA", () => {
    for (const bad of ["abc", "1.5", 2.5, "1e3", "3 minutes"]) {
      expect(messageOf([row({ sla: bad })]), String(bad)).toBe("Priority level and SLA must be whole number.");
      expect(messageOf([row({ level: bad })]), String(bad)).toBe("Priority level and SLA must be whole number.");
    }
  });

  it("wants #RRGGBB colours", () => {
    for (const bad of ["#12345", "123456", "#12345g", "red", "#1234567", "#fff"]) {
      expect(messageOf([row({ color: bad })]), bad).toBe("Color format is not correct");
      expect(messageOf([row({ colorDark: bad })]), bad).toBe("Color format is not correct");
    }
  });

  it("answers 'Please check the input.' for everything else", () => {
    const input = "Please check the input.";
    expect(messageOf("[not json")).toBe(input);
    expect(messageOf([], "{oops")).toBe(input);
    expect(messageOf({ name: "x" })).toBe(input);
    expect(messageOf(["a string"])).toBe(input);
    expect(messageOf([row({ level: -1 })])).toBe(input);
    expect(messageOf([row({ sla: "-5" })])).toBe(input);
    expect(messageOf([row({ sla: 99999999999 })])).toBe(input);
    expect(messageOf([row({ name: "x".repeat(61) })])).toBe(input);
    expect(messageOf([row({ name: 42 })])).toBe(input);
    expect(messageOf([row({ id: "abc" })])).toBe(input);
    expect(messageOf([row({ id: 1 }), row({ id: 1 })])).toBe(input);
    expect(messageOf([], ["x"])).toBe(input);
    expect(messageOf([], [0])).toBe(input);
    expect(messageOf([row({ name: "x".repeat(60) })])).toBe("ok");
  });

  it("reports the most basic problem first and points at every bad field", () => {
    const result = validateLabels([row({ color: "bad" }), row({ name: "", sla: "x" })], []);
    expect(result).toMatchObject({ ok: false, code: "empty", message: LABEL_MESSAGES.empty });
    if (result.ok) return;
    expect(result.issues).toEqual(
      expect.arrayContaining([
        { code: "color", row: 0, field: "color" },
        { code: "empty", row: 1, field: "name" },
        { code: "whole", row: 1, field: "sla" },
      ]),
    );
  });

  it("treats isNew rows as new whatever their temporary id, and lets a delete win over an edit", () => {
    const fresh = validateLabels([row({ id: "tmp-1", isNew: true })], []);
    expect(fresh.ok).toBe(true);
    if (fresh.ok) expect(fresh.rows[0].row.id).toBeUndefined();
    // the edited row is being deleted, so its empty name does not matter
    expect(validateLabels([row({ id: 2, name: "" })], [2])).toMatchObject({ ok: true, rows: [], deleteIds: [2] });
  });
});

describe.each(DIALECTS)("labels on %s", (dialect) => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0, now: NOW });
  });
  afterAll(async () => t?.cleanup());

  /** Every case starts from the six seeded labels. */
  beforeEach(async () => {
    const { db, schema } = t.handle;
    await db.delete(schema.labels);
    await db.insert(schema.labels).values(SEEDED);
  });

  it("lists the labels in id order", async () => {
    expect(await listLabels()).toEqual(SEEDED);
  });

  it("creates a label with the new-row defaults and returns the new list", async () => {
    const result = await saveLabels([{ name: "Callback", color: "#000000", colorDark: "#000000", level: "0", sla: "30" }], []);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.labels).toHaveLength(SEEDED.length + 1);
    const created = result.labels.at(-1)!;
    expect(created).toMatchObject({ name: "Callback", color: "#000000", colorDark: "#000000", level: 0, sla: 30 });
    expect(created.id).toBeGreaterThan(SEEDED.length);
    expect(await listLabels()).toEqual(result.labels);
  });

  it("updates, inserts and deletes in one save", async () => {
    const result = await saveLabels(
      JSON.stringify([
        { ...SEEDED[0], name: "Very urgent", sla: 10 },
        { ...SEEDED[1] },
        row({ name: "Warranty" }),
        row({ name: "Order", isNew: true, id: "new-1" }),
      ]),
      JSON.stringify([6, 5]),
    );
    expect(result.ok).toBe(true);
    const labels = await listLabels();
    expect(labels.map((l) => l.name)).toEqual(["Very urgent", "VIP", "Complaint", "Refund", "Warranty", "Order"]);
    expect(labels[0]).toEqual({ ...SEEDED[0], name: "Very urgent", sla: 10 });
    expect(labels.find((l) => l.name === "Warranty")).toMatchObject({ color: "#112233", colorDark: "#aabbcc", level: 1, sla: 45 });
  });

  it("deletes only, when no rows come", async () => {
    expect((await saveLabels(undefined, [3])).ok).toBe(true);
    expect((await listLabels()).map((l) => l.id)).toEqual([1, 2, 4, 5, 6]);
  });

  it("changes nothing when one row of a batch is invalid", async () => {
    const result = await saveLabels([{ ...SEEDED[0], name: "Changed" }, row({ name: "New one" }), row({ color: "#zzzzzz" })], [6]);
    expect(result).toMatchObject({ ok: false, message: "Color format is not correct", issues: [{ code: "color", row: 2, field: "color" }] });
    expect(await listLabels()).toEqual(SEEDED);
  });

  it("rolls back the writes already made when an id turns out unknown inside the transaction", async () => {
    // the delete and the first update run before the unknown id is found; all are undone
    const result = await saveLabels([{ ...SEEDED[0], name: "Changed" }, row({ name: "New one" }), row({ id: 999, name: "Ghost" })], [6]);
    expect(result).toMatchObject({ ok: false, message: "Please check the input.", issues: [{ code: "input", row: 2, field: "id" }] });
    expect(await listLabels()).toEqual(SEEDED);

    const unknownDelete = await saveLabels([{ ...SEEDED[0], name: "Changed" }], [5, 998]);
    expect(unknownDelete).toMatchObject({ ok: false, message: "Please check the input.", issues: [{ code: "input", deleteId: 998 }] });
    expect(await listLabels()).toEqual(SEEDED);
  });

  it("keeps working after a failed save (the transaction is closed either way)", async () => {
    await saveLabels([row({ id: 999 })], []);
    const result = await saveLabels([row({ name: "After" })], []);
    expect(result.ok).toBe(true);
    expect((await listLabels()).at(-1)).toMatchObject({ name: "After" });
  });
});
