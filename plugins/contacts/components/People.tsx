// The profile pages of people who are not customer contacts (plugins/contacts/people.server.ts):
// a team member (photo, name, username, type, department, status, and the conversations they
// take part in that the viewer may read), a bot, and a live chat's visitor.
import { Link } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { SerializeFrom } from "@remix-run/node";
import { Avatar } from "~/accounts/components/ProfileCard";
import { statusLabel } from "~/presence";
import { formatDate } from "~/time";
import type { StaffProfile, VisitorProfile } from "../people.server";

export function StaffPage({ staff, timeZone }: { staff: SerializeFrom<StaffProfile>; timeZone: string }) {
  const { t } = useTranslation();
  return (
    <section className="stack contact-page staff-page" data-person-kind={staff.kind}>
      <p>
        <Link to="/contacts">{t("plugin_contacts.contact.back")}</Link>
      </p>
      <header style={{ display: "flex", gap: ".75rem", alignItems: "center" }}>
        <Avatar photo={staff.photo} name={staff.name} size={72} />
        <h1 style={{ margin: 0 }}>{staff.name}</h1>
      </header>
      {staff.kind === "bot" ? (
        <>
          <p className="muted">{staff.username}</p>
          <p>{t("account.card.bot")}</p>
        </>
      ) : (
        <>
          <dl className="staff-facts">
            <dt>{t("plugin_contacts.staff.username")}</dt>
            <dd>{staff.username}</dd>
            <dt>{t("plugin_contacts.staff.type")}</dt>
            <dd>{t(`userType.${staff.type}`, { defaultValue: staff.type })}</dd>
            <dt>{t("plugin_contacts.staff.department")}</dt>
            <dd>{staff.department || t("plugin_contacts.staff.noDepartment")}</dd>
            <dt>{t("plugin_contacts.staff.status")}</dt>
            <dd>{statusLabel(t, staff.status)}</dd>
            {staff.email ? (
              <>
                <dt>{t("plugin_contacts.field.email")}</dt>
                <dd>{staff.email}</dd>
              </>
            ) : null}
          </dl>
          {(["ticket", "livechat"] as const).map((kind) => {
            const list = staff.conversations[kind];
            const id = `staff-${kind}`;
            return (
              <section key={kind} className="stack" aria-labelledby={id}>
                <h2 id={id}>{t(kind === "ticket" ? "account.card.tickets" : "account.card.livechat")}</h2>
                {list.items.length ? (
                  <ol className="contact-activity">
                    {list.items.map((item) => (
                      <li key={item.path}>
                        <Link to={item.path}>{`#${item.ticketNumber} ${item.title}`}</Link>
                        {` · ${t(`ticketStatus.${item.status}`)} · `}
                        <time dateTime={new Date(item.updatedAt).toISOString()}>{formatDate(item.updatedAt, timeZone)}</time>
                      </li>
                    ))}
                  </ol>
                ) : (
                  <p className="muted">{t("plugin_contacts.contact.noActivity")}</p>
                )}
                {list.more ? (
                  <p>
                    <Link to={`/profile?${new URLSearchParams({ username: staff.username, tab: kind, shown: "20" })}`}>{t("account.card.loadMore")}</Link>
                  </p>
                ) : list.items.length ? (
                  <p className="muted">{t("plugin_contacts.contact.caughtUp")}</p>
                ) : null}
              </section>
            );
          })}
        </>
      )}
    </section>
  );
}

export function VisitorPage({ visitor }: { visitor: VisitorProfile }) {
  const { t } = useTranslation();
  return (
    <section className="stack contact-page visitor-page">
      <p>
        <Link to="/contacts">{t("plugin_contacts.contact.back")}</Link>
      </p>
      <h1>{visitor.name || t("plugin_contacts.noName")}</h1>
      <p>{t("account.card.visitor")}</p>
      <dl>
        <dt>{t("plugin_contacts.field.email")}</dt>
        <dd>{visitor.email || t("plugin_contacts.contact.noneKnown")}</dd>
      </dl>
      <p>
        <Link to={visitor.path}>{t("plugin_contacts.visitor.open", { number: visitor.ticketNumber })}</Link>
      </p>
    </section>
  );
}
