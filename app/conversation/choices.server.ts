// Small reference lists for selects (labels, departments).
import { asc } from "drizzle-orm";
import { getDb } from "@db/client";

export async function listLabelChoices() {
  const { db, schema } = getDb();
  return db
    .select({ id: schema.labels.id, name: schema.labels.name, color: schema.labels.color, colorDark: schema.labels.colorDark })
    .from(schema.labels)
    .orderBy(asc(schema.labels.name));
}

export async function listDepartmentChoices() {
  const { db, schema } = getDb();
  return db.select({ id: schema.departments.id, name: schema.departments.name }).from(schema.departments).orderBy(asc(schema.departments.name));
}
