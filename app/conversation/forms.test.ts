// The conversation's form rules: the page's small forms (one schema per intent, refusing what
// they never send) and the public forms' e-mail address.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { formError, formValues } from "~/forms";
import { conversationFormSchema, oneAddress } from "./forms";

const form = (entries: [string, string][]) => {
  const data = new FormData();
  for (const [name, value] of entries) data.append(name, value);
  return data;
};

describe("the conversation page's forms", () => {
  const parse = (entries: [string, string][]) => conversationFormSchema.safeParse(formValues(form(entries)));

  it("reads each intent's fields", () => {
    expect(parse([["intent", "labels"]]).data).toEqual({ intent: "labels", label: [] });
    expect(
      parse([
        ["intent", "labels"],
        ["label", "2"],
        ["label", "5"],
      ]).data,
    ).toEqual({ intent: "labels", label: [2, 5] });
    expect(
      parse([
        ["intent", "department"],
        ["department", ""],
      ]).data,
    ).toEqual({ intent: "department", department: null });
    expect(
      parse([
        ["intent", "add_participant"],
        ["username", "amy"],
      ]).data,
    ).toEqual({ intent: "add_participant", username: "amy", assignee: false });
    expect(
      parse([
        ["intent", "note"],
        ["message_id", "7"],
        ["note", "  hi "],
      ]).data,
    ).toEqual({ intent: "note", message_id: 7, note: "hi" });
    expect(
      parse([
        ["intent", "priority"],
        ["priority", ""],
      ]).data,
    ).toEqual({ intent: "priority", priority: "" });
  });

  it("refuses unknown intents and bad hidden fields", () => {
    expect(parse([["intent", "nope"]]).success).toBe(false);
    expect(parse([["intent", "pin"]]).success).toBe(false);
    expect(
      parse([
        ["intent", "priority"],
        ["priority", "X"],
      ]).success,
    ).toBe(false);
    expect(
      parse([
        ["intent", "remove_participant"],
        ["user_id", "-1"],
      ]).success,
    ).toBe(false);
  });
});

describe("a public form's e-mail address", () => {
  const schema = z.object({ name: z.string().min(1, "x.empty"), email: z.string() }).transform(oneAddress);

  it("is one address, checked once the other fields pass; the error names it", () => {
    const failed = schema.safeParse({ name: "Amy", email: "a@b.c d@e.f" });
    expect(formError(failed.error!, {})).toMatchObject({ errors: { email: "conversation.badEmail" }, messageValues: { address: "a@b.c d@e.f" } });
    expect(formError(schema.safeParse({ name: "", email: "nope" }).error!, {}).errors).toEqual({ name: "x.empty" });
    expect(schema.safeParse({ name: "Amy", email: "" }).success).toBe(true);
    expect(schema.safeParse({ name: "Amy", email: "amy@example.com" }).success).toBe(true);
  });
});
