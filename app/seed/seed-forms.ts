// The demo survey behind /survey/demo (deterministic: fixed fields, no answers).
import type { DbHandle } from "../../db/client";

export const DEMO_SURVEY_FIELDS = [
  { id: "name", label: "Name", type: "text", required: true, options: [] },
  { id: "email", label: "Email", type: "email", required: true, options: [] },
  { id: "satisfaction", label: "How satisfied were you?", type: "rating", required: true, options: ["1", "2", "3", "4", "5"] },
  { id: "comments", label: "Comments", type: "textarea", required: false, options: [] },
];

export async function seedForms(handle: DbHandle, opts: { token: string; now: number }) {
  const { db, schema } = handle;
  await db.insert(schema.surveys).values({
    token: opts.token,
    title: "Customer satisfaction",
    fields: JSON.stringify(DEMO_SURVEY_FIELDS),
    createdAt: opts.now,
    updatedAt: opts.now,
  });
}
