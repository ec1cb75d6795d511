// The online-agents popup: a <details> that, with JavaScript, loads the list when opened and
// refreshes it every 60 s and whenever someone's presence changes; without, it links the page.
import { Link, useFetcher } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { PRESENCE_EVENT } from "~/realtime-store";
import { presenceClass, statusLabel } from "~/presence";
import { ProfileLink } from "~/accounts/components/ProfileCard";
import { Icon } from "./Icon";
import { closeMenuOnEscape } from "./dialog-focus";

type Agent = { username: string; name: string; status: string; second_status: string; ts: number };
const REFRESH_MS = 60_000;

export function OnlineAgents() {
  const { t } = useTranslation();
  const fetcher = useFetcher<{ agents: Agent[] }>();
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!open) return;
    let soon: ReturnType<typeof setTimeout> | undefined;
    const load = () => fetcher.load("/agents/online");
    // several presence changes at once cost one load
    const loadSoon = () => {
      clearTimeout(soon);
      soon = setTimeout(load, 300);
    };
    load();
    const timer = setInterval(load, REFRESH_MS);
    window.addEventListener(PRESENCE_EVENT, loadSoon);
    return () => {
      clearInterval(timer);
      clearTimeout(soon);
      window.removeEventListener(PRESENCE_EVENT, loadSoon);
    };
    // fetcher.load is stable enough for this; re-subscribing on each render would spam loads
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);
  return (
    <details className="online-agents" onToggle={(e) => setOpen(e.currentTarget.open)} onKeyDown={closeMenuOnEscape}>
      <summary className="bar-button">
        <Icon name="agents" />
        <span className="bar-text">{t("online.title")}</span>
      </summary>
      <div className="menu-panel">{fetcher.data ? <OnlineList agents={fetcher.data.agents} /> : <Link to="/agents/online">{t("online.open")}</Link>}</div>
    </details>
  );
}

export function OnlineList({ agents, heading = false }: { agents: Agent[]; heading?: boolean }) {
  const { t } = useTranslation();
  return (
    <section className="online-list">
      {heading ? <h1>{t("online.title")}</h1> : null}
      {agents.length === 0 ? (
        <p className="muted">{t("online.none")}</p>
      ) : (
        <ul>
          {agents.map((a) => {
            const shown = a.second_status || a.status;
            return (
              <li key={a.username} data-agent={a.username}>
                <span className={presenceClass(shown)} aria-hidden="true" /> <ProfileLink username={a.username}>{a.name}</ProfileLink>{" "}
                <span className="muted">{statusLabel(t, shown)}</span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
