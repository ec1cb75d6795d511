// Global search UI: the top-bar launcher (a plain link to /search; with JavaScript a modal dialog
// that loads the same /search loader through a fetcher), and the form and results shared by the
// dialog and the /search page.
import { Form, Link, useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useId, useRef, useState, type FormEvent, type MouseEvent, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { useHydrated } from "~/hooks";
import { Icon } from "~/components/Icon";
import { LabelChip } from "~/components/LabelChip";
import { shortcutTarget } from "~/shortcuts";
import { useDialogFocus } from "~/components/dialog-focus";
import type { RecordSection, SearchResult } from "../search.server";
import type { PanelText } from "~/conversation/panels.server";
import { highlightSegments } from "../highlight";
import { ChannelName } from "~/components/ChannelName";

/** What the /search loader answers (result is null until there is a query). */
export interface SearchPageData {
  q: string;
  result: SearchResult | null;
  /** Contacts, cases and products the query finds (other plugins' `searchHits`). */
  records: RecordSection[];
}

/** The /search URL of a query and its two page indexes (0-based, omitted when 0). */
export function searchHref(q: string, postIndex = 0, messageIndex = 0) {
  const params = new URLSearchParams({ q });
  if (postIndex > 0) params.set("search_index", String(postIndex));
  if (messageIndex > 0) params.set("search_message_index", String(messageIndex));
  return `/search?${params}`;
}

/** A plain click (no modifier keys): the ones we may handle in place. */
const plainClick = (e: MouseEvent) => e.button === 0 && !e.metaKey && !e.ctrlKey && !e.shiftKey && !e.altKey;

export function SearchLauncher() {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const [open, setOpen] = useState(false);
  const launcher = useRef<HTMLAnchorElement>(null);
  const location = useLocation();
  // following a result (or any navigation) closes the dialog
  useEffect(() => setOpen(false), [location.key]);
  const close = () => {
    setOpen(false);
    launcher.current?.focus();
  };
  return (
    <>
      <Link
        ref={launcher}
        to="/search"
        className="button bar-button search-launcher"
        {...shortcutTarget("search")}
        aria-haspopup={hydrated ? "dialog" : undefined}
        aria-expanded={hydrated ? open : undefined}
        onClick={(e) => {
          if (!plainClick(e)) return;
          e.preventDefault();
          setOpen(true);
        }}
      >
        <Icon name="search" />
        <span className="bar-text">{t("shell.search")}</span>
      </Link>
      {open ? <SearchDialog onClose={close} /> : null}
    </>
  );
}

function SearchDialog({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  const fetcher = useFetcher<SearchPageData>();
  const titleId = useId();
  const loading = fetcher.state !== "idle";
  const dialog = useRef<HTMLElement>(null);
  // focus in the search box, Tab kept inside, Escape closes
  useDialogFocus(dialog, onClose);
  const data = fetcher.data;
  return (
    <div
      className="modal-backdrop search-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <section ref={dialog} className="modal search-modal" role="dialog" aria-modal="true" aria-labelledby={titleId}>
        <header className="search-modal-head">
          <h2 id={titleId}>{t("search.title")}</h2>
          <button type="button" className="icon-button" onClick={onClose} aria-label={t("search.close")}>
            ×
          </button>
        </header>
        <SearchForm q={data?.q ?? ""} loading={loading} autoFocus onSearch={(q) => fetcher.load(searchHref(q))} />
        <div aria-busy={loading} className="search-modal-body">
          {data?.result ? <SearchResults q={data.q} result={data.result} records={data.records} onSearchLink={(href) => fetcher.load(href)} /> : null}
        </div>
      </section>
    </div>
  );
}

/**
 * The search box: a GET form to /search (input q). Enter runs only when not loading and the text
 * is not empty (spec section 5): with JavaScript the button is disabled then and the submit is
 * ignored; without JavaScript an empty query just shows the form again.
 */
export function SearchForm({ q, loading, onSearch, autoFocus = false }: { q: string; loading: boolean; onSearch?: (q: string) => void; autoFocus?: boolean }) {
  const { t } = useTranslation();
  const hydrated = useHydrated();
  const helpId = useId();
  const [text, setText] = useState(q);
  useEffect(() => setText(q), [q]);
  const blocked = loading || !text.trim();
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    if (blocked) {
      e.preventDefault();
      return;
    }
    if (onSearch) {
      e.preventDefault();
      onSearch(text.trim());
    }
  };
  return (
    <Form method="get" action="/search" className="search-form" role="search" onSubmit={onSubmit}>
      <label className="search-label">
        <span className="sr-only">{t("search.label")}</span>
        <input
          type="search"
          name="q"
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={t("search.placeholder")}
          maxLength={500}
          autoComplete="off"
          autoFocus={autoFocus}
          data-autofocus={autoFocus || undefined}
          aria-describedby={helpId}
          {...shortcutTarget("search")}
        />
      </label>
      <button type="submit" className="button primary" disabled={hydrated && blocked}>
        {loading ? t("search.searching") : t("search.submit")}
      </button>
      <p id={helpId} className="muted search-help">
        {t("search.help")}
      </p>
    </Form>
  );
}

const countText = (count: number, capped: boolean) => (capped ? `${count}+` : String(count));

/** Wraps the search terms found in `text` in <mark> (React escapes the text itself). */
function Highlight({ text, terms }: { text: string; terms: string[] }) {
  return <>{highlightSegments(text, terms).map((s, i) => (s.mark ? <mark key={i}>{s.text}</mark> : s.text))}</>;
}

/**
 * Hit lists for a query. Links that run another search (pagers, label suggestions) are real links
 * to /search; `onSearchLink` handles them in place instead (the dialog's fetcher).
 */
export function SearchResults({
  q,
  result,
  records = [],
  onSearchLink,
}: {
  q: string;
  result: SearchResult;
  records?: RecordSection[];
  onSearchLink?: (href: string) => void;
}) {
  const { t } = useTranslation();
  const text = (label: PanelText) =>
    "text" in label
      ? label.text
      : t(label.key, Object.fromEntries(Object.entries(label.values ?? {}).map(([k, v]) => [k, v.startsWith("t:") ? t(v.slice(2)) : v])));
  const searchLink = (href: string, children: ReactNode, extra: { rel?: string; className?: string } = {}) => (
    <Link
      to={href}
      {...extra}
      onClick={
        onSearchLink
          ? (e) => {
              if (!plainClick(e)) return;
              e.preventDefault();
              onSearchLink(href);
            }
          : undefined
      }
    >
      {children}
    </Link>
  );
  const nothing = result.postCount === 0 && result.messageCount === 0 && result.contact.length === 0 && records.length === 0;
  return (
    <div className="search-results">
      {result.labels.length ? (
        <nav className="search-labels" aria-label={t("search.labelSuggestions")}>
          <span className="muted">{t("search.labelSuggestions")}</span>
          <ul>
            {result.labels.map((l) => (
              <li key={l.id}>{searchLink(searchHref(l.query), <LabelChip label={l}>{l.name}</LabelChip>)}</li>
            ))}
          </ul>
        </nav>
      ) : null}
      {nothing ? (
        <p className="muted empty" role="status">
          {t("search.noResults", { q })}
        </p>
      ) : null}
      {records.map((section) => (
        <section key={section.id ?? section.plugin} className="search-section" aria-label={t(section.title)} data-records={section.id ?? section.plugin}>
          <h3>{t(section.title)}</h3>
          <ul className="search-hits">
            {section.hits.map((hit) => (
              <li key={hit.href}>
                <Link to={hit.href} className="search-hit">
                  <span className="title">{text(hit.title)}</span>
                  {hit.detail ? <span className="muted">{text(hit.detail)}</span> : null}
                </Link>
              </li>
            ))}
          </ul>
          {section.more ? <Link to={section.more}>{t("search.moreRecords", { what: t(section.title) })}</Link> : null}
        </section>
      ))}
      {result.contact.length ? (
        <section className="search-section" aria-label={t("search.contacts")}>
          <h3>{t("search.contacts")}</h3>
          <ul className="search-hits">
            {result.contact.map((c) => (
              <li key={c.uid}>
                <Link to={c.link} className="search-hit">
                  <span className="title">{c.name || c.email}</span>
                  <span className="muted">{c.email}</span>
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {nothing ? null : (
        <>
          <section className="search-section" aria-label={t("search.conversations")} data-list="post">
            <h3>
              {t("search.conversations")} <span className="badge">{countText(result.postCount, result.postCountCapped)}</span>
            </h3>
            {result.post.length ? (
              <ul className="search-hits">
                {result.post.map((p) => (
                  <li key={p.id}>
                    <Link to={p.link} className="search-hit" data-ticket={p.ticket_number}>
                      <span className="row">
                        <ChannelName channel={p.channel} />
                        <span className="number">#{p.ticket_number}</span>
                        <span className="muted">{t(`ticketStatus.${p.status}`, { defaultValue: "?" })}</span>
                      </span>
                      <span className="title">
                        <Highlight text={p.title} terms={result.terms} />
                      </span>
                    </Link>
                    {p.contact_email ? (
                      <Link to={`/contacts/${encodeURIComponent(p.contact_email)}`} className="search-contact muted">
                        {p.contact_name || p.contact_email}
                      </Link>
                    ) : p.contact_name ? (
                      <span className="search-contact muted">{p.contact_name}</span>
                    ) : null}
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">{t("search.noConversations")}</p>
            )}
            <Pager
              label={t("search.pagerConversations")}
              index={result.search_index}
              more={result.postMore}
              prev={searchHref(q, result.search_index - 1, result.search_message_index)}
              next={searchHref(q, result.search_index + 1, result.search_message_index)}
              link={searchLink}
            />
          </section>
          <section className="search-section" aria-label={t("search.messages")} data-list="message">
            <h3>
              {t("search.messages")} <span className="badge">{countText(result.messageCount, result.messageCountCapped)}</span>
            </h3>
            {result.message.length ? (
              <ul className="search-hits">
                {result.message.map((m) => (
                  <li key={m.id}>
                    <Link to={m.link} className="search-hit" data-ticket={m.ticket_number} data-message={m.id}>
                      <span className="row">
                        <ChannelName channel={m.channel} />
                        <span className="number">#{m.ticket_number}</span>
                        <span className="muted">{m.sender}</span>
                      </span>
                      <span className="excerpt">
                        <Highlight text={m.message} terms={result.terms} />
                      </span>
                    </Link>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">{t("search.noMessages")}</p>
            )}
            <Pager
              label={t("search.pagerMessages")}
              index={result.search_message_index}
              more={result.messageMore}
              prev={searchHref(q, result.search_index, result.search_message_index - 1)}
              next={searchHref(q, result.search_index, result.search_message_index + 1)}
              link={searchLink}
            />
          </section>
        </>
      )}
    </div>
  );
}

function Pager(props: {
  label: string;
  index: number;
  more: boolean;
  prev: string;
  next: string;
  link: (href: string, children: ReactNode, extra?: { rel?: string; className?: string }) => ReactNode;
}) {
  const { t } = useTranslation();
  if (props.index === 0 && !props.more) return null;
  return (
    <nav className="pager search-pager" aria-label={props.label}>
      {props.index > 0 ? props.link(props.prev, t("search.prev"), { rel: "prev" }) : <span />}
      <span className="muted">{t("search.page", { page: props.index + 1 })}</span>
      {props.more ? props.link(props.next, t("search.next"), { rel: "next" }) : <span />}
    </nav>
  );
}
