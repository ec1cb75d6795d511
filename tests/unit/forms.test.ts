// Surveys on both dialects: answers checked against the admin's fields, stored as text, listed
// newest first in pages of 10; the field editor; revoked links.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDb, DIALECTS, type TestDb } from "./harness";
import { seedDemo } from "~/seed/seed";
import * as forms from "@plugins/forms/forms.server";
import { isValidToken } from "~/accounts/public-tokens.server";

const NOW = Date.UTC(2026, 10, 21, 12);
const good = { name: "Aisha", email: "aisha@example.com", satisfaction: "4", comments: "" };
const row = (r: Partial<forms.EditorRow>): forms.EditorRow => ({ id: "", label: "", type: "text", required: false, options: "", remove: false, ...r });

describe.each(DIALECTS)("surveys on %s", (dialect) => {
  let t: TestDb;

  beforeAll(async () => {
    t = await createTestDb(dialect);
    await seedDemo(t.handle, { tickets: 0, now: NOW });
  });
  afterAll(async () => t?.cleanup());

  it("seeds the demo survey behind the demo token", async () => {
    const survey = (await forms.getSurveyByToken("demo"))!;
    expect(survey.title).toBe("Customer satisfaction");
    expect(survey.fields.map((f) => [f.label, f.type, f.required])).toEqual([
      ["Name", "text", true],
      ["Email", "email", true],
      ["How satisfied were you?", "rating", true],
      ["Comments", "textarea", false],
    ]);
    expect(await forms.getSurveyByToken("nope")).toBeUndefined();
    expect(await forms.getSurveyByToken(undefined)).toBeUndefined();
  });

  it("refuses empty required fields, bad addresses, numbers and choices, field by field", async () => {
    const { fields } = (await forms.getSurveyByToken("demo"))!;
    const empty = forms.validateAnswers(fields, {});
    expect(empty).toEqual({
      ok: false,
      errors: { name: { key: "forms.empty" }, email: { key: "forms.empty" }, satisfaction: { key: "forms.empty" } },
    });
    const bad = forms.validateAnswers(fields, { ...good, email: "not-an-address", satisfaction: "6" });
    expect(bad).toEqual({
      ok: false,
      errors: { email: { key: "forms.badEmail", values: { address: "not-an-address" } }, satisfaction: { key: "forms.badChoice" } },
    });
    expect(forms.validateAnswers(fields, { ...good, name: "  Aisha  ", extra: "dropped" })).toEqual({ ok: true, data: { ...good, name: "Aisha" } });
    const custom: forms.SurveyField[] = [
      { id: "n", label: "Age", type: "number", required: false, options: [] },
      { id: "s", label: "Plan", type: "select", required: true, options: ["Basic", "Pro"] },
    ];
    expect(forms.validateAnswers(custom, { n: "twelve", s: "Gold" })).toEqual({
      ok: false,
      errors: { n: { key: "forms.badNumber" }, s: { key: "forms.badChoice" } },
    });
    expect(forms.validateAnswers(custom, { n: "", s: "Pro" })).toEqual({ ok: true, data: { n: "", s: "Pro" } });
    expect(forms.validateAnswers(custom, { n: "-1.5", s: "Basic" })).toMatchObject({ ok: true });
  });

  it("stores answers as the text sent (HTML is not interpreted) and lists them newest first in pages of 10", async () => {
    const html = '<img src=x onerror="alert(1)"> & <b>bold</b>';
    for (let i = 0; i < 12; i++) {
      const result = await forms.submitSurvey("demo", { ...good, name: `Visitor ${i}`, comments: i === 11 ? html : "" }, NOW + i * 1000);
      expect(result.ok).toBe(true);
    }
    expect(await forms.submitSurvey("demo", { ...good, name: "" })).toMatchObject({ ok: false, errors: { name: { key: "forms.empty" } } });
    const survey = (await forms.getSurveyByToken("demo"))!;
    const first = await forms.listSubmissions(survey, 1);
    expect(first).toMatchObject({ total: 12, page: 1, pages: 2 });
    expect(first.submissions).toHaveLength(10);
    expect(first.submissions[0]!.answers).toEqual([
      { label: "Name", value: "Visitor 11" },
      { label: "Email", value: "aisha@example.com" },
      { label: "How satisfied were you?", value: "4" },
      { label: "Comments", value: html },
    ]);
    const second = await forms.listSubmissions(survey, 2);
    expect(second.submissions.map((s) => s.answers[0]!.value)).toEqual(["Visitor 1", "Visitor 0"]);
    // pages past the end show the last page
    expect((await forms.listSubmissions(survey, 99)).page).toBe(2);
    const listed = await forms.listSurveys();
    expect(listed[0]).toMatchObject({ token: "demo", submissions: 12 });
  });

  it("creates a survey with a live link and edits its fields, refusing empty labels and select fields without options", async () => {
    expect(await forms.createSurvey("   ")).toMatchObject({ ok: false, code: "empty", title: true });
    const created = await forms.createSurvey("Delivery feedback", NOW);
    if (!created.ok) throw new Error("not created");
    const survey = created.value;
    expect(await isValidToken("survey", survey.token)).toBe(true);
    expect((await forms.getSurveyByToken(survey.token))!.id).toBe(survey.id);

    expect(await forms.saveSurvey(survey.id, "Delivery feedback", [row({ label: "", options: "a" })])).toMatchObject({ ok: false, code: "empty", rows: [0] });
    expect(
      await forms.saveSurvey(survey.id, "Delivery feedback", [row({ label: "Fine" }), row({ label: "Plan", type: "select", options: " , " })]),
    ).toMatchObject({
      ok: false,
      code: "options",
      rows: [1],
    });
    expect(await forms.saveSurvey(survey.id, "Delivery feedback", [row({ label: "X", type: "colour" })])).toMatchObject({ ok: false, code: "input" });
    expect(await forms.saveSurvey(survey.id, "", [])).toMatchObject({ ok: false, code: "empty", title: true });

    const saved = await forms.saveSurvey(survey.id, "Delivery feedback", [
      row({ label: "Courier", type: "select", options: "DHL, UPS, DHL", required: true }),
      row({ label: "Stars", type: "rating", options: "ignored" }),
      row({}), // an untouched empty row adds nothing
    ]);
    if (!saved?.ok) throw new Error("not saved");
    expect(saved.value.fields.map((f) => [f.label, f.type, f.required, f.options])).toEqual([
      ["Courier", "select", true, ["DHL", "UPS"]],
      ["Stars", "rating", false, forms.RATING_OPTIONS],
    ]);
    const [courier, stars] = saved.value.fields;
    expect(courier!.id).not.toBe(stars!.id);
    expect(await forms.submitSurvey(survey.token, { [courier!.id]: "UPS" })).toMatchObject({ ok: true });

    // rename one field, remove the other: ids stay, old answers keep showing under their id
    const again = await forms.saveSurvey(survey.id, "Delivery survey", [
      row({ id: courier!.id, label: "Courier company", type: "select", options: "DHL, UPS", required: true }),
      row({ id: stars!.id, label: "Stars", type: "rating", remove: true }),
    ]);
    expect(again).toMatchObject({ ok: true, value: { title: "Delivery survey" } });
    const list = await forms.listSubmissions((await forms.getSurvey(survey.id))!, 1);
    expect(list.submissions[0]!.answers).toEqual([
      { label: "Courier company", value: "UPS" },
      { label: stars!.id, value: "" },
    ]);
    // an id the survey does not have is not accepted
    expect(await forms.saveSurvey(survey.id, "x", [row({ id: "fdeadbeef", label: "Y" })])).toMatchObject({ ok: false, code: "input" });
    expect(await forms.saveSurvey(999_999, "x", [])).toBeUndefined();
  });

  it("a renewed link replaces the old one: the old token is invalid, answers stay with the survey", async () => {
    const created = await forms.createSurvey("Renewed", NOW);
    if (!created.ok) throw new Error("not created");
    const old = created.value.token;
    await forms.saveSurvey(created.value.id, "Renewed", [row({ label: "Q" })]);
    expect(await forms.submitSurvey(old, { [(await forms.getSurvey(created.value.id))!.fields[0]!.id]: "first" })).toMatchObject({ ok: true });
    const fresh = (await forms.renewSurveyLink(created.value.id, NOW + 1))!;
    expect(fresh).not.toBe(old);
    expect(await forms.getSurveyByToken(old)).toBeUndefined();
    expect(await isValidToken("survey", old)).toBe(false);
    expect(await forms.submitSurvey(old, {})).toEqual({ ok: false, invalidLink: true });
    const survey = (await forms.getSurveyByToken(fresh))!;
    expect(survey.id).toBe(created.value.id);
    expect((await forms.listSubmissions(survey, 1)).total).toBe(1);
  });

  it("a revoked demo token shows nothing", async () => {
    const { db, schema } = t.handle;
    await db.update(schema.publicTokens).set({ revokedAt: NOW });
    expect(await forms.getSurveyByToken("demo")).toBeUndefined();
    expect(await forms.submitSurvey("demo", good)).toEqual({ ok: false, invalidLink: true });
  });
});
