// The list panel: tickets (tabs All / Department / Label), workspace chats, with filters, saved
// presets and a pager. Every control is a link or a GET form.
import { Form, Link, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { CHANNELS, conversationPath } from "~/conversation/channels";
import { relativeTime } from "~/time";
import { listParams, listSearch } from "~/list-params";
import { HIGHLIGHT_MS, useListed, useRealtime, withDelta } from "~/realtime-store";
import { useEffect, useState } from "react";
import type { ListGroup, ListPanelData } from "../list-panel.server";
import { DeskSessions } from "@plugins/livechat/components/DeskSessions";
import type { ListItem } from "../ticket-list.server";
import { LabelChip, LabelDot } from "~/components/LabelChip";
import { countdownAt } from "~/conversation/countdown";
import { ChannelName } from "~/components/ChannelName";

type Props = {
  data: ListPanelData;
  presets: { id: number; name: string; query: string; count: number; capped: boolean }[];
  now: number;
  /** livechat, chat: the list's tabs; sla: the SLA filter and order (the sla plugin is on). */
  tabs: { livechat: boolean; chat: boolean; sla?: boolean };
};

const STATUS_CODES = [0, 1, 2, 3, 4] as const;
const SLA_CHOICES = ["breached", "warning", "running"] as const;
const EMOTIONS = ["anger", "fear", "happy", "love", "sad", "surprise", "curious"] as const;

/** A filter select whose first choice, "Any", leaves the filter off. */
function AnySelect({ name, label, value, options }: { name: string; label: string; value: string | number | undefined; options: [string | number, string][] }) {
  const { t } = useTranslation();
  return (
    <label>
      {label}
      <select name={name} defaultValue={value ?? ""}>
        <option value="">{t("list.any")}</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}
const MAX_AVATARS = 3;

/** The list's part of the query with some keys changed (null removes a key). */
function withParams(search: string, changes: Record<string, string | number | null>) {
  const params = listParams(search);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) params.delete(key);
    else params.set(key, String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : "?";
}

export function ListPanel({ data, presets, now, tabs }: Props) {
  const { t } = useTranslation();
  const location = useLocation();
  const search = location.search;
  const base = location.pathname;
  const modes = (["ticket", "livechat", "chat"] as const).filter((m) => m === "ticket" || tabs[m]);
  return (
    // id "list", focusable by script: focus comes here after a conversation is closed (ConversationView)
    <section id="list" tabIndex={-1} className="list-panel" aria-label={t("shell.list")}>
      <nav className="tabs" aria-label={t("list.modes")}>
        {modes.map((mode) => (
          <Link
            key={mode}
            to={`${base}${withParams(search, { list: mode === "ticket" ? null : mode, page: null, tab: null })}`}
            aria-current={data.mode === mode ? "page" : undefined}
          >
            {t(`list.mode.${mode}`)}
          </Link>
        ))}
      </nav>
      {data.mode === "livechat" && data.desk ? (
        <>
          <p className="livechat-queue-link">
            <Link to={`/livechat${listSearch(search)}`}>{t("livechat.desk.queueCount", { count: data.desk.queue.length })}</Link>
          </p>
          <DeskSessions sessions={data.desk.sessions} search={listSearch(search)} />
        </>
      ) : (
        <>
          {data.mode === "ticket" ? (
            <nav className="subtabs" aria-label={t("list.tabs")}>
              {(["all", "department", "label"] as const).map((tab) => (
                <Link
                  key={tab}
                  to={`${base}${withParams(search, { tab: tab === "all" ? null : tab, page: null })}`}
                  aria-current={data.tab === tab ? "page" : undefined}
                >
                  {t(`list.tab.${tab}`)}
                </Link>
              ))}
            </nav>
          ) : null}
          <nav className="status-tabs" aria-label={t("list.status")}>
            {STATUS_CODES.map((code) => (
              <Link
                key={code}
                to={`${base}${withParams(search, { status: code === 0 ? null : code, page: null })}`}
                aria-current={data.q.status === code ? "page" : undefined}
              >
                {t(`ticketStatus.${code}`)}
              </Link>
            ))}
          </nav>
          {data.mode === "chat" ? (
            <Link to="/chat" className="button new-chat">
              {t("list.newChat")}
            </Link>
          ) : null}
          <Filters data={data} presets={presets} sla={!!tabs.sla} />
          {data.list ? (
            <>
              <p className="muted list-count" aria-live="polite">
                {data.list.capped ? t("list.countMore", { count: data.list.total }) : t("list.count", { count: data.list.total })}
              </p>
              <ItemList items={data.list.items} now={now} search={search} />
              <Pager page={data.list.page} pages={data.list.pages} more={data.list.capped} search={search} base={base} />
            </>
          ) : null}
          {data.groups ? data.groups.map((g) => <Group key={g.key} group={g} now={now} search={search} base={base} />) : null}
        </>
      )}
    </section>
  );
}

function Filters({ data, presets, sla }: { data: ListPanelData; presets: Props["presets"]; sla: boolean }) {
  const { t } = useTranslation();
  const q = data.q;
  const location = useLocation();
  const active = ["channel", "label", "department", "priority", "campaign", "assignee", "emotion", "appt", "preset", "sla"].filter(
    (k) => q[k as keyof typeof q] !== undefined,
  ).length;
  return (
    <details className="filters">
      <summary>
        {t("list.filters")}
        {active ? <span className="badge">{active}</span> : null}
      </summary>
      <Form method="get" className="filter-form">
        {data.mode !== "ticket" ? <input type="hidden" name="list" value={data.mode} /> : null}
        {data.tab !== "all" ? <input type="hidden" name="tab" value={data.tab} /> : null}
        <input type="hidden" name="status" value={q.status} />
        <AnySelect name="channel" label={t("list.channel")} value={q.channel} options={CHANNELS.map((c) => [c, t(`channel.${c}`)])} />
        <AnySelect name="label" label={t("list.label")} value={q.label} options={data.choices.labels.map((l) => [l.id, l.name])} />
        <AnySelect name="department" label={t("list.department")} value={q.department} options={data.choices.departments.map((d) => [d.id, d.name])} />
        <AnySelect
          name="priority"
          label={t("list.priority")}
          value={q.priority}
          options={(["H", "M", "L", "none"] as const).map((p) => [p, t(`priority.${p}`)])}
        />
        <AnySelect name="assignee" label={t("list.assignee")} value={q.assignee} options={data.choices.agents.map((a) => [a.username, a.name])} />
        <AnySelect name="emotion" label={t("list.emotion")} value={q.emotion} options={EMOTIONS.map((e) => [e, t(`emotion.${e}`)])} />
        <AnySelect name="appt" label={t("list.appointment")} value={q.appt} options={(["any", "soon"] as const).map((a) => [a, t(`list.appointments.${a}`)])} />
        {sla ? (
          <AnySelect name="sla" label={t("plugin_sla.list.filter")} value={q.sla} options={SLA_CHOICES.map((s) => [s, t(`plugin_sla.list.${s}`)])} />
        ) : null}
        <label>
          {t("list.campaign")}
          <input name="campaign" inputMode="numeric" pattern="\d*" defaultValue={q.campaign ?? ""} />
        </label>
        <fieldset>
          <legend>{t("list.date")}</legend>
          <select name="dateField" defaultValue={q.dateField} aria-label={t("list.dateField")}>
            {(["updated", "created", "appointment"] as const).map((f) => (
              <option key={f} value={f}>
                {t(`list.dateFields.${f}`)}
              </option>
            ))}
          </select>
          <select name="preset" defaultValue={q.preset ?? ""} aria-label={t("list.datePreset")}>
            <option value="">{t("list.any")}</option>
            {(["current", "yesterday", "1week", "custom"] as const).map((p) => (
              <option key={p} value={p}>
                {t(`list.presets.${p}`)}
              </option>
            ))}
          </select>
          <label>
            {t("list.from")}
            <input type="date" name="from" defaultValue={q.from ?? ""} />
          </label>
          <label>
            {t("list.to")}
            <input type="date" name="to" defaultValue={q.to ?? ""} />
          </label>
        </fieldset>
        <label>
          {t("list.sort")}
          <select name="sort" defaultValue={q.sort}>
            <option value="updated">{t("list.sortUpdated")}</option>
            <option value="priority">{t("list.sortPriority")}</option>
            {sla ? <option value="sla">{t("plugin_sla.list.sort")}</option> : null}
          </select>
        </label>
        <div className="inline-form">
          <button type="submit" className="button primary">
            {t("list.apply")}
          </button>
          <Link to={location.pathname} className="button">
            {t("list.clear")}
          </Link>
        </div>
      </Form>
      <Form method="post" action="/filters" className="inline-form">
        <input type="hidden" name="query" value={location.search.replace(/^\?/, "")} />
        <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
        <label>
          {t("list.presetName")}
          <input name="name" maxLength={60} required />
        </label>
        <button type="submit" name="intent" value="save" className="button">
          {t("list.savePreset")}
        </button>
      </Form>
      {presets.length ? (
        <ul className="presets">
          {presets.map((p) => (
            <li key={p.id}>
              <Link to={`${location.pathname}?${p.query}`}>
                {p.name} <span className="badge">{p.capped ? `${p.count}+` : p.count}</span>
              </Link>
              <Form method="post" action="/filters">
                <input type="hidden" name="id" value={p.id} />
                <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
                <button type="submit" name="intent" value="delete" className="link-button" aria-label={t("list.deletePreset", { name: p.name })}>
                  ×
                </button>
              </Form>
            </li>
          ))}
        </ul>
      ) : null}
    </details>
  );
}

function ItemList({ items: loaded, now, search }: { items: ListItem[]; now: number; search: string }) {
  const { t } = useTranslation();
  // a conversation this user was just removed from leaves every list at once
  const items = useListed(loaded);
  if (items.length === 0) return <p className="muted empty">{t("home.empty")}</p>;
  return (
    <ul className="ticket-list">
      {items.map((item) => (
        <li key={item.id}>
          <Item item={item} now={now} search={search} />
        </li>
      ))}
    </ul>
  );
}

function Item({ item: loaded, now, search }: { item: ListItem; now: number; search: string }) {
  const { t } = useTranslation();
  const location = useLocation();
  const current = location.pathname === conversationPath(loaded.kind, loaded.ticketNumber);
  // a new message's news patches the item without reloading the list
  const live = useRealtime();
  const item = withDelta(loaded, live.listDelta[loaded.id], live.me, current);
  const href = `${conversationPath(item.kind, item.ticketNumber)}${listSearch(search)}`;
  const rel = relativeTime(item.updatedAt, Math.max(now, item.updatedAt));
  return (
    <Link
      to={href}
      className={`ticket-item${item.unread ? " unread" : ""}${useFresh(item.id) ? " fresh" : ""}`}
      aria-current={current ? "page" : undefined}
      data-ticket={item.ticketNumber}
    >
      <div className="row">
        <ChannelName channel={item.channel} />
        <span className="number">#{item.ticketNumber}</span>
        {item.severity ? (
          <span className={`severity severity-${item.severity}`} title={t(`priority.${item.severity}`)}>
            {t(`priorityShort.${item.severity}`)}
          </span>
        ) : null}
        {item.badges?.map((b) => (
          <Badge key={b.plugin} badge={b} />
        ))}
        <time dateTime={new Date(item.updatedAt).toISOString()} className="muted">
          {t(`relative.${rel.key}`, { count: rel.count })}
        </time>
      </div>
      <div className="title">{item.title}</div>
      <div className="last muted">{item.encrypted ? t("conversation.encryption.message") : item.lastMessage}</div>
      <div className="row">
        <span className="avatars">
          {item.assignees.slice(0, MAX_AVATARS).map((a) => (
            <span key={a.username} className="avatar" title={a.name}>
              {initials(a.name)}
            </span>
          ))}
          {item.assignees.length > MAX_AVATARS ? <span className="avatar more">+{item.assignees.length - MAX_AVATARS}</span> : null}
        </span>
        <span className="labels">
          {item.labels.map((l) => (
            <LabelChip key={l.id} label={l}>
              {l.name ?? t("list.removedLabel")}
            </LabelChip>
          ))}
        </span>
        {item.unread ? <span className="flag flag-new">{t("list.new")}</span> : item.responded ? <span className="flag">{t("list.replied")}</span> : null}
      </div>
    </Link>
  );
}

type ItemBadge = NonNullable<ListItem["badges"]>[number];

/**
 * A plugin's mark on a row. One with a countdown (the SLA's time left) is redrawn every 30 s with
 * JavaScript, counted from the plugin's own clock at load; the server's text is the first render.
 */
function Badge({ badge }: { badge: ItemBadge }) {
  const { t } = useTranslation();
  const [shown, setShown] = useState<Pick<ItemBadge, "text" | "label" | "state">>(badge);
  // set once the countdown runs in the browser (data-ticking): a test moving the clock waits for it
  const [ticking, setTicking] = useState(false);
  const c = badge.countdown;
  useEffect(() => {
    setShown(badge);
    if (!c) return;
    setTicking(true);
    const loadedAt = Date.now();
    const redraw = () => {
      const now = countdownAt(c, c.now + (Date.now() - loadedAt));
      setShown({ ...now, state: badge.state === "breached" ? "breached" : now.state });
    };
    redraw();
    const timer = setInterval(redraw, 30_000);
    return () => clearInterval(timer);
  }, [badge, c]);
  return (
    <span
      className={`list-badge list-badge-${shown.state}`}
      data-badge={badge.plugin}
      data-state={shown.state}
      data-due={c ? new Date(c.dueAt).toISOString() : undefined}
      data-ticking={ticking ? "" : undefined}
      title={shown.label ? badgeText(t, shown.label) : undefined}
    >
      {badgeText(t, shown.text)}
    </span>
  );
}

/** A plugin's text: as written, or a translation key with its values ("t:key" values translated too). */
function badgeText(t: ReturnType<typeof useTranslation>["t"], text: { text: string } | { key: string; values?: Record<string, string> }) {
  return "text" in text
    ? text.text
    : t(text.key, Object.fromEntries(Object.entries(text.values ?? {}).map(([k, v]) => [k, v.startsWith("t:") ? t(v.slice(2)) : v])));
}

/** True for 5 s after news about this conversation arrived over the socket. */
function useFresh(ticketId: number) {
  const at = useRealtime().fresh[ticketId];
  const [, tick] = useState(0);
  useEffect(() => {
    if (!at) return;
    const left = at + HIGHLIGHT_MS - Date.now();
    if (left <= 0) return;
    const timer = setTimeout(() => tick((n) => n + 1), left);
    return () => clearTimeout(timer);
  }, [at]);
  return !!at && Date.now() - at < HIGHLIGHT_MS;
}

export function initials(name: string) {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join("");
}

function Pager({ page, pages, more, search, base }: { page: number; pages: number; more: boolean; search: string; base: string }) {
  const { t } = useTranslation();
  if (pages <= 1 && !more) return null;
  return (
    <nav className="pager" aria-label={t("list.pager")}>
      {page > 1 ? (
        <Link to={`${base}${withParams(search, { page: page - 1 })}`} rel="prev">
          {t("list.prev")}
        </Link>
      ) : (
        <span />
      )}
      <Form method="get" className="inline-form">
        {[...listParams(search)]
          .filter(([k]) => k !== "page")
          .map(([k, v]) => (
            <input key={k} type="hidden" name={k} value={v} />
          ))}
        <label className="inline">
          {t("list.page")}
          <input name="page" type="number" min={1} max={more ? undefined : pages} defaultValue={page} className="page-input" />
        </label>
        <span>{t("list.of", { pages: more ? `${pages}+` : pages })}</span>
      </Form>
      {page < pages || more ? (
        <Link to={`${base}${withParams(search, { page: page + 1 })}`} rel="next">
          {t("list.next")}
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}

function Group({ group, now, search, base }: { group: ListGroup; now: number; search: string; base: string }) {
  const { t } = useTranslation();
  return (
    <details className="list-group" open>
      <summary>
        {group.color ? <LabelDot label={group} /> : null}
        {group.name}
      </summary>
      <ItemList items={group.items} now={now} search={search} />
      {group.more ? (
        <Link className="show-more" to={`${base}${withParams(search, { [group.key]: group.limit + 10 })}`}>
          {t("list.showMore")}
        </Link>
      ) : null}
    </details>
  );
}
