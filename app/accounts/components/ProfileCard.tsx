// The profile modal (spec section 2): avatar, name, 'View Profile'; a local user's Tickets and
// Live Chat tabs with Load More; a customer's activity (and their Tickets and Live Chat); the bot
// and visitor texts. Without
// JavaScript a ProfileLink is a plain link to the same card on /profile?username=...; with it,
// the card opens in a dialog over the page and its links load inside the dialog.
import { Link, useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useId, useRef, useState, type MouseEvent, type ReactNode } from "react";
import { createPortal } from "react-dom";
import { useTranslation } from "react-i18next";
import type { ProfileCardData } from "../profile.server";

const TAB_LABELS = { ticket: "account.card.tickets", livechat: "account.card.livechat", activity: "account.card.activity" } as const;

const plainClick = (e: MouseEvent) => e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;

export function Avatar({ photo, name, size = 50 }: { photo: string; name: string; size?: number }) {
  if (photo) return <img src={photo} alt="" width={size} height={size} className="profile-avatar" style={{ borderRadius: "50%", objectFit: "cover" }} />;
  const initial = [...name.trim()][0]?.toUpperCase() ?? "?";
  return (
    <span
      aria-hidden="true"
      className="profile-avatar"
      style={{
        width: size,
        height: size,
        borderRadius: "50%",
        display: "inline-grid",
        placeItems: "center",
        background: "var(--accent)",
        color: "var(--accent-text)",
        fontSize: size / 2.5,
      }}
    >
      {initial}
    </span>
  );
}

/** The card; `open` (in the dialog) loads its links there instead of leaving the page. */
export function ProfileCard({ card, open, headingId }: { card: ProfileCardData | null; open?: (href: string) => void; headingId?: string }) {
  const { t } = useTranslation();
  if (!card) return <p role="alert">{t("account.card.notFound")}</p>;
  const { person } = card;
  const href = (extra: Record<string, string>) => `/profile?${card.query}&${new URLSearchParams(extra).toString()}`;
  const follow = (to: string) => (e: MouseEvent) => {
    if (!open || !plainClick(e)) return;
    e.preventDefault();
    open(to);
  };
  return (
    <article className="profile-card stack" data-person-kind={person.kind}>
      <header style={{ display: "flex", gap: ".75rem", alignItems: "center" }}>
        <Avatar photo={person.photo} name={person.name} />
        <div>
          <h2 id={headingId} style={{ margin: 0 }}>
            {person.name}
          </h2>
          {"username" in person ? (
            <p className="muted" style={{ margin: 0 }}>
              {person.username}
            </p>
          ) : null}
          {"email" in person && person.email ? (
            <p className="muted" style={{ margin: 0 }}>
              {person.email}
            </p>
          ) : null}
        </div>
      </header>
      {person.uid ? (
        <p style={{ margin: 0 }}>
          <Link to={`/contacts/${encodeURIComponent(person.uid)}`}>{t("account.viewProfile")}</Link>
        </p>
      ) : null}
      {person.kind === "bot" ? <p>{t("account.card.bot")}</p> : null}
      {person.kind === "visitor" ? <p>{t("account.card.visitor")}</p> : null}
      {card.tabs.length ? (
        <nav aria-label={t("account.card.tabs")}>
          <ul className="inline-list" style={{ display: "flex", gap: "1rem", listStyle: "none", padding: 0, margin: 0 }}>
            {card.tabs.map((tab) => (
              <li key={tab}>
                <Link
                  to={href({ tab })}
                  onClick={follow(href({ tab }))}
                  aria-current={card.tab === tab ? "page" : undefined}
                  style={card.tab === tab ? { fontWeight: 700 } : undefined}
                >
                  {t(TAB_LABELS[tab])}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      {card.tab ? (
        <>
          <ul className="profile-items" style={{ listStyle: "none", padding: 0, margin: 0 }}>
            {card.items.map((item) => (
              <li
                key={item.path}
                style={{ display: "flex", gap: ".5rem", justifyContent: "space-between", padding: ".25rem 0", borderBottom: "1px solid var(--border)" }}
              >
                <Link to={item.path}>
                  #{item.ticketNumber} {item.title}
                </Link>
                <span className="muted">
                  {t(`ticketStatus.${item.status}`, { defaultValue: "?" })} · {item.date}
                </span>
              </li>
            ))}
          </ul>
          {card.more ? (
            <p style={{ margin: 0 }}>
              <Link
                className="button"
                to={href({ tab: card.tab, shown: String(card.shown + card.step) })}
                onClick={follow(href({ tab: card.tab, shown: String(card.shown + card.step) }))}
              >
                {t("account.card.loadMore")}
              </Link>
            </p>
          ) : (
            <p className="muted" style={{ margin: 0 }}>
              {t("account.card.allCaughtUp")}
            </p>
          )}
        </>
      ) : null}
    </article>
  );
}

/** A person's name that opens their card: a dialog with JavaScript, the card's page without. */
export function ProfileLink({ username, ticket, children, className }: { username?: string; ticket?: number; children: ReactNode; className?: string }) {
  const { t } = useTranslation();
  const href = `/profile?${new URLSearchParams(username !== undefined ? { username } : { ticket: String(ticket ?? "") }).toString()}`;
  const fetcher = useFetcher<{ view: string; card?: ProfileCardData | null }>();
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const link = useRef<HTMLAnchorElement>(null);
  const headingId = useId();
  useEffect(() => {
    if (open && dialog.current && !dialog.current.open) dialog.current.showModal();
  }, [open]);
  // a link followed from the card leaves the page: the dialog goes with it
  const { key } = useLocation();
  useEffect(() => setOpen(false), [key]);
  const close = () => {
    setOpen(false);
    link.current?.focus();
  };
  const card = fetcher.data?.view === "card" ? fetcher.data.card : undefined;
  return (
    <>
      <Link
        ref={link}
        to={href}
        className={className}
        onClick={(e) => {
          if (!plainClick(e)) return;
          e.preventDefault();
          fetcher.load(href);
          setOpen(true);
        }}
      >
        {children}
      </Link>
      {open
        ? createPortal(
            <dialog
              ref={dialog}
              className="modal profile-modal"
              aria-labelledby={card ? headingId : undefined}
              aria-label={card ? undefined : t("account.card.loading")}
              onClose={close}
            >
              <form method="dialog" style={{ display: "flex", justifyContent: "flex-end" }}>
                <button type="submit" className="icon-button" aria-label={t("account.card.close")}>
                  ×
                </button>
              </form>
              {card === undefined ? (
                <p role="status">{t("account.card.loading")}</p>
              ) : (
                <ProfileCard card={card} open={(to) => fetcher.load(to)} headingId={headingId} />
              )}
            </dialog>,
            document.body,
          )
        : null}
    </>
  );
}
