import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formError, formResult, formValues, readFormResult, refusalKey, safeRedirect, valueList } from "./forms";
import { refuse } from "./forms.server";

describe("safeRedirect", () => {
  it.each([
    ["/ticket/5?status=1#m-3", "/ticket/5?status=1#m-3"],
    ["/settings", "/settings"],
    ["//evil.example", "/"],
    ["/.//evil.example", "/"],
    ["/a/..//evil.example", "/"],
    ["/\\evil.example", "/"],
    ["/\t/evil.example", "/"],
    ["/\n/evil.example", "/"],
    ["https://evil.example", "/"],
    ["javascript:alert(1)", "/"],
    ["", "/"],
  ])("%j goes to %j", (target, expected) => {
    expect(safeRedirect(target)).toBe(expected);
  });
  it("uses the fallback for missing values", () => expect(safeRedirect(null, "/home")).toBe("/home"));
});

const form = (entries: [string, string | File][]) => {
  const data = new FormData();
  for (const [name, value] of entries) data.append(name, value);
  return data;
};

describe("FormResult", () => {
  it("keeps the first error of each field, and an error of no field as the message", () => {
    const schema = z
      .object({ name: z.string().min(1, "x.empty").max(3, "x.long"), age: z.coerce.number().min(1, "x.age") })
      .refine((v) => v.name !== "no", { message: "x.form" });
    const failed = schema.safeParse({ name: "", age: "0" });
    expect(failed.success).toBe(false);
    expect(formError(failed.error!, { name: "", age: "0" }, "save")).toEqual({
      intent: "save",
      errors: { name: "x.empty", age: "x.age" },
      values: { name: "", age: "0" },
    });
    const whole = schema.safeParse({ name: "no", age: "2" });
    expect(formError(whole.error!, {})).toEqual({ errors: {}, values: {}, message: "x.form" });
  });

  it("takes a custom issue's params as the interpolation values", () => {
    const schema = z
      .object({ host: z.string() })
      .superRefine((v, ctx) => ctx.addIssue({ code: "custom", message: "x.host", path: ["host"], params: { host: v.host } }));
    const failed = schema.safeParse({ host: "a b" });
    expect(formError(failed.error!, { host: "a b" })).toEqual({ errors: { host: "x.host" }, values: { host: "a b" }, messageValues: { host: "a b" } });
  });

  it("reads a form's text fields: the names asked (missing ones empty), repeated ones one per line, no files", () => {
    const data = form([
      ["message", "two\nlines"],
      ["people", "amy"],
      ["people", "bo"],
      ["attachment", new File(["x"], "x.txt")],
    ]);
    expect(formValues(data, ["message", "people", "cc"])).toEqual({ message: "two\nlines", people: "amy\nbo", cc: "" });
    expect(formValues(data)).toEqual({ message: "two\nlines", people: "amy\nbo" });
    expect(valueList(formValues(data, ["people"]).people)).toEqual(["amy", "bo"]);
    expect(valueList("")).toEqual([]);
  });

  it("tells a refusal from other action data, by intent when asked", () => {
    const result = formResult({ intent: "reply", message: "conversation.empty" });
    expect(result).toEqual({ intent: "reply", errors: {}, values: {}, message: "conversation.empty" });
    expect(readFormResult(result)).toBe(result);
    expect(readFormResult(result, "reply")).toBe(result);
    expect(readFormResult(result, "note")).toBeUndefined();
    expect(readFormResult({ page: "agent" })).toBeUndefined();
    expect(readFormResult(undefined)).toBeUndefined();
  });

  it("keys each refusal anew, two alike in a row too", () => {
    const first = formResult({ message: "x.form" });
    const second = formResult({ message: "x.form" });
    expect(refusalKey(undefined, "loaded")).toBe("loaded");
    expect(refusalKey(first, "loaded")).toBe(refusalKey(first, "other"));
    expect(refusalKey(second, "loaded")).not.toBe(refusalKey(first, "loaded"));
  });

  it("answers a refusal as JSON, 400 unless told", async () => {
    const refused = refuse(formResult({ message: "x.form" }));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ errors: {}, values: {}, message: "x.form" });
    expect(refuse(formResult({ message: "x.many" }), 429).status).toBe(429);
  });
});
