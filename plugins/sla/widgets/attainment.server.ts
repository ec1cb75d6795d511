// The dashboard widget: SLA attainment (met out of met + breached) of the conversations created in
// the range, by label (the label whose policy applied) and by assigned agent, from sla_tickets.
// Open conversations count once their deadline has passed (breached); open ones still in time do not.
import { sql } from "drizzle-orm";
import { rows } from "@db/client";
import type { WidgetData, WidgetInput } from "@plugins/reports/widgets.server";

type Counted = { name: string; met: number; breached: number };

const outcomeSql = (now: number) =>
  sql`case when s.outcome is not null then s.outcome when s.due_at is not null and s.due_at <= ${now} then 'breached' when s.state = 'breached' then 'breached' else null end`;

export async function attainment(input: WidgetInput): Promise<WidgetData> {
  const { t, range, now } = input;
  const kinds = sql.join(
    input.kinds.map((k) => sql`${k}`),
    sql`, `,
  );
  const base = sql`from sla_tickets s join tickets t on t.id = s.ticket_id
    where s.state <> 'none' and t.created_at >= ${range.from} and t.created_at < ${range.to} and t.kind in (${kinds})`;
  const [byLabel, byAgent] = await Promise.all([
    rows<{ name: string; outcome: string | null; n: number }>(
      sql`select l.name as name, o.outcome as outcome, count(*) as n from (select s.label_id as label_id, ${outcomeSql(now)} as outcome ${base}) o
        join labels l on l.id = o.label_id where o.outcome is not null group by l.name, o.outcome`,
    ),
    rows<{ name: string; outcome: string | null; n: number }>(
      sql`select u.name as name, o.outcome as outcome, count(*) as n from (select s.ticket_id as ticket_id, ${outcomeSql(now)} as outcome ${base}) o
        join participants p on p.ticket_id = o.ticket_id and p.assignee = true
        join users u on u.id = p.user_id where o.outcome is not null group by u.name, o.outcome`,
    ),
  ]);
  const fold = (found: { name: string; outcome: string | null; n: number }[]) => {
    const out = new Map<string, Counted>();
    for (const r of found) {
      const c = out.get(r.name) ?? { name: r.name, met: 0, breached: 0 };
      if (r.outcome === "met") c.met += Number(r.n);
      else c.breached += Number(r.n);
      out.set(r.name, c);
    }
    return [...out.values()].sort((a, b) => a.name.localeCompare(b.name));
  };
  const shape = (by: string, c: Counted) => ({
    by,
    name: c.name,
    attainment: Math.round((1000 * c.met) / Math.max(1, c.met + c.breached)) / 10,
    met: c.met,
    breached: c.breached,
  });
  const labelWord = t("plugin_sla.widget.label");
  const agentWord = t("plugin_sla.widget.agent");
  return {
    rows: [...fold(byLabel).map((c) => shape(labelWord, c)), ...fold(byAgent).map((c) => shape(agentWord, c))],
    columns: [
      { key: "by", label: t("plugin_sla.widget.by") },
      { key: "name", label: t("plugin_sla.widget.name") },
      { key: "attainment", label: t("plugin_sla.widget.attainment") },
      { key: "met", label: t("plugin_sla.widget.met") },
      { key: "breached", label: t("plugin_sla.widget.breached") },
    ],
  };
}
