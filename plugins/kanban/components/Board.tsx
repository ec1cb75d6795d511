// The board's columns and cards. Without JavaScript each card has its own "Move to" form; with it
// a card is also dragged (by its handle, mouse, touch or keyboard) onto another column: the card
// moves at once and the move is posted; the board's data then reloads (the realtime event).
import { DndContext, KeyboardSensor, PointerSensor, useDraggable, useDroppable, useSensor, useSensors, type DragEndEvent } from "@dnd-kit/core";
import { Form, Link, useFetcher } from "@remix-run/react";
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import type { TFunction } from "i18next";
import { FormMessage } from "~/components/FormMessage";
import { readFormResult } from "~/forms";
import { subscribe } from "valtio";
import { realtime } from "~/realtime-store";
import { CLIENT_EVENTS } from "~/realtime-events";
import { NO_COLUMN } from "../limits";

type Card = { ticketNumber: number; title: string; contactName: string; channel: string; status: number; updatedAt: number; column: string; version: number };
type Column = { key: string; name: string | null; status: number | null; total: number; cards: Card[] };

export function columnTitle(t: TFunction, c: Pick<Column, "key" | "name" | "status">) {
  if (c.status !== null) return t(`ticketStatus.${c.status}`);
  if (c.key === NO_COLUMN) return t("plugin_kanban.board.noColumn");
  return c.name ?? "";
}

/**
 * While the board is open its socket hears every ticket's status change (made on a ticket page,
 * by a customer's reopening mail, ...), again after each reconnect; the page then reloads its data.
 */
function useStatusWatch() {
  useEffect(() => {
    let watching = false;
    const watch = () => {
      // a reconnect is a new socket on the server: ask again
      if (realtime.status === "connected" && !watching) realtime.socket?.emit(CLIENT_EVENTS.watchStatuses, true);
      watching = realtime.status === "connected";
    };
    watch();
    const unsubscribe = subscribe(realtime, watch);
    return () => {
      unsubscribe();
      realtime.socket?.emit(CLIENT_EVENTS.watchStatuses, false);
    };
  }, []);
}

export function Board({ columns, action, search, view }: { columns: Column[]; action: string; search: string; view: string }) {
  const { t } = useTranslation();
  useStatusWatch();
  const fetcher = useFetcher();
  // moves made here, shown until the board's data reloads
  const [placed, setPlaced] = useState<Record<number, string>>({});
  useEffect(() => setPlaced({}), [columns]);
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 6 } }), useSensor(KeyboardSensor));
  const titles = useMemo(() => Object.fromEntries(columns.map((c) => [c.key, columnTitle(t, c)])), [columns, t]);
  const shown = useMemo(() => {
    if (!Object.keys(placed).length) return columns;
    const moving = columns.flatMap((c) => c.cards).filter((card) => placed[card.ticketNumber] && placed[card.ticketNumber] !== card.column);
    return columns.map((c) => {
      const leaving = c.cards.filter((card) => moving.includes(card)).length;
      const arriving = moving.filter((card) => placed[card.ticketNumber] === c.key).map((card) => ({ ...card, column: c.key }));
      return { ...c, total: c.total - leaving + arriving.length, cards: [...arriving, ...c.cards.filter((card) => !moving.includes(card))] };
    });
  }, [columns, placed]);
  // a drag's move the server refused (the card went meanwhile, a column deleted): said above the board
  const refused = fetcher.data && typeof fetcher.data === "object" && "result" in fetcher.data ? readFormResult(fetcher.data.result) : undefined;
  const numberOf = (id: string | number) => Number(String(id).replace(/^card-/, ""));
  const onDragEnd = (e: DragEndEvent) => {
    const to = e.over?.id ? String(e.over.id) : "";
    const number = numberOf(e.active.id);
    const from = e.active.data.current?.column as string | undefined;
    if (!to || to === from) return;
    setPlaced((p) => ({ ...p, [number]: to }));
    fetcher.submit({ intent: "move", ticket: String(number), to, fetch: "1" }, { method: "post", action });
  };
  return (
    <DndContext
      id="kanban-board"
      sensors={sensors}
      onDragEnd={onDragEnd}
      accessibility={{
        screenReaderInstructions: { draggable: t("plugin_kanban.dnd.instructions") },
        announcements: {
          onDragStart: ({ active }) => t("plugin_kanban.dnd.picked", { number: numberOf(active.id) }),
          onDragOver: ({ active, over }) =>
            over ? t("plugin_kanban.dnd.over", { number: numberOf(active.id), column: titles[String(over.id)] ?? "" }) : undefined,
          onDragEnd: ({ active, over }) =>
            over
              ? t("plugin_kanban.dnd.dropped", { number: numberOf(active.id), column: titles[String(over.id)] ?? "" })
              : t("plugin_kanban.dnd.cancelled", { number: numberOf(active.id) }),
          onDragCancel: ({ active }) => t("plugin_kanban.dnd.cancelled", { number: numberOf(active.id) }),
        },
      }}
    >
      <FormMessage result={refused} />
      <div className={`kanban-board kanban-${view}`}>
        {shown.map((c) => (
          <BoardColumn key={c.key} column={c} columns={columns} titles={titles} action={action} search={search} />
        ))}
      </div>
    </DndContext>
  );
}

function BoardColumn({
  column,
  columns,
  titles,
  action,
  search,
}: {
  column: Column;
  columns: Column[];
  titles: Record<string, string>;
  action: string;
  search: string;
}) {
  const { t } = useTranslation();
  const { setNodeRef, isOver } = useDroppable({ id: column.key });
  const title = titles[column.key];
  const headingId = `kanban-col-${column.key}`;
  const more = column.total - column.cards.length;
  const moreParams = new URLSearchParams(search);
  moreParams.set("more", column.key);
  return (
    <section ref={setNodeRef} className={`kanban-column${isOver ? " is-over" : ""}`} aria-labelledby={headingId} data-column={column.key}>
      <h2 id={headingId}>
        {title} <span className="muted">({t("plugin_kanban.board.count", { count: column.total })})</span>
      </h2>
      {column.cards.length ? (
        <ul className="kanban-cards">
          {column.cards.map((card) => (
            <BoardCard key={card.ticketNumber} card={card} column={column.key} columns={columns} titles={titles} action={action} />
          ))}
        </ul>
      ) : (
        <p className="muted">{t("plugin_kanban.board.empty")}</p>
      )}
      {more > 0 ? (
        <p className="kanban-more">
          {t("plugin_kanban.board.more", { count: more })} <Link to={`/kanban?${moreParams}`}>{t("plugin_kanban.board.showMore", { column: title })}</Link>
        </p>
      ) : null}
    </section>
  );
}

function BoardCard({
  card,
  column,
  columns,
  titles,
  action,
}: {
  card: Card;
  column: string;
  columns: Column[];
  titles: Record<string, string>;
  action: string;
}) {
  const { t } = useTranslation();
  const id = `card-${card.ticketNumber}`;
  const { attributes, listeners, setNodeRef, transform, isDragging } = useDraggable({ id, data: { column } });
  const style = transform ? { transform: `translate3d(${transform.x}px, ${transform.y}px, 0)`, zIndex: 10 } : undefined;
  const selectId = `kanban-move-${card.ticketNumber}`;
  return (
    <li ref={setNodeRef} style={style} className={`kanban-card${isDragging ? " is-dragging" : ""}`} data-ticket={card.ticketNumber} data-version={card.version}>
      <div
        className="kanban-handle"
        {...listeners}
        {...attributes}
        aria-label={t("plugin_kanban.board.card", { number: card.ticketNumber, title: card.title })}
      >
        <span aria-hidden="true">⠿</span> #{card.ticketNumber}
      </div>
      <p>
        <Link to={`/ticket/${card.ticketNumber}`}>{card.title}</Link>
      </p>
      <p className="muted">
        <bdi>{card.contactName}</bdi> · {card.channel}
      </p>
      <Form method="post" action={action} className="inline-form kanban-move">
        <input type="hidden" name="intent" value="move" />
        <input type="hidden" name="ticket" value={card.ticketNumber} />
        <label htmlFor={selectId}>{t("plugin_kanban.board.moveTo", { number: card.ticketNumber })}</label>
        <select id={selectId} name="to" defaultValue={columns.find((c) => c.key !== column)?.key}>
          {columns
            .filter((c) => c.key !== column)
            .map((c) => (
              <option key={c.key} value={c.key}>
                {titles[c.key]}
              </option>
            ))}
        </select>
        <button type="submit" className="button">
          {t("plugin_kanban.board.move")}
        </button>
      </Form>
    </li>
  );
}
