// Live chats grouped by visitor session (spec 'Live chat group'), newest first; each group folds
// (<details>, so it works without JavaScript).
import { NavLink } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { DeskSession } from "../livechat.server";

/** `search`: the list panel's query, kept on the links. */
export function DeskSessions({ sessions, search = "" }: { sessions: DeskSession[]; search?: string }) {
  const { t } = useTranslation();
  if (!sessions.length) return <p className="muted empty">{t("livechat.desk.noChats")}</p>;
  return (
    <ul className="livechat-sessions">
      {sessions.map((s) => (
        <li key={s.id ?? `t${s.chats[0].id}`}>
          <details open>
            <summary>
              <span className="session-name">{s.name}</span> <span className="muted">({s.chats.length})</span>
              {s.chats.some((c) => c.unread) ? <span className="badge unread">{t("livechat.desk.unread")}</span> : null}
            </summary>
            <ul>
              {s.chats.map((c) => (
                <li key={c.id} className={c.unread ? "unread" : undefined}>
                  <NavLink to={`/livechat/${c.ticketNumber}${search}`}>
                    <span className="muted">#{c.ticketNumber}</span> <span className="session-last">{c.lastMessage || c.title}</span>{" "}
                    <span className={`badge state-${c.state ?? "none"}`}>{t(`livechat.state.${c.state ?? "unknown"}`)}</span>
                    {c.rating !== null ? <span className="rating"> {"★".repeat(c.rating)}</span> : null}
                  </NavLink>
                </li>
              ))}
            </ul>
          </details>
        </li>
      ))}
    </ul>
  );
}
