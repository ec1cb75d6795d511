// The audit log: who did what, appended in the same transaction as the change it records.
import { getDb, type Tx } from "@db/client";

export type AuditEvent = {
  /** Dotted verb, e.g. "signin.ok", "signin.failed", "user.created", "user.disabled", "plugin.toggled", "export.csv", "tfa.enabled". */
  action: string;
  actor?: { id: number; name: string } | null;
  target?: { type: string; id: string | number };
  detail?: Record<string, unknown>;
  ip?: string;
};

/** Appends one entry; pass the transaction of the change so both commit or neither. */
export async function audit(event: AuditEvent, tx?: Tx) {
  const { db, schema } = getDb();
  await (tx ?? db).insert(schema.auditLog).values({
    at: Date.now(),
    actorId: event.actor?.id ?? null,
    actorName: event.actor?.name ?? "",
    action: event.action,
    targetType: event.target?.type ?? "",
    targetId: event.target ? String(event.target.id) : "",
    detail: JSON.stringify(event.detail ?? {}),
    ip: event.ip ?? "",
  });
}
