// The visitor's live chat page, one screen per state of the visit (spec section 4, public live
// chat flow). Without JavaScript: plain forms, a queue page that refreshes itself and a message
// list in a self-refreshing frame. With it: socket.io news, typing and the accept sound.
import { useEffect, useRef, useState } from "react";
import { Form, Link, useActionData, useFetcher } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import type { Socket } from "socket.io-client";
import type { VisitorPageData } from "../visitor.server";
import { readFormResult, useFormResult } from "~/forms";
import { SERVER_EVENTS, CLIENT_EVENTS, VISITOR_EVENTS } from "~/realtime-events";
import { FormMessage } from "~/components/FormMessage";
import { RequestKeyInput } from "~/components/RequestKeyInput";
import { REQUEST_KEY_FIELD_NAME } from "~/request-key-field";
import { useResendWhenLost } from "~/conversation/send-retry";
import { VisitorE2ee, VisitorE2eeError } from "./visitor-e2ee";

/** Spec section 9: the public live chat retries every second and opens the chat 2 s after acceptance. */
const RECONNECT_MS = 1000;
const OPEN_AFTER_ACCEPT_MS = 2000;
const REMOTE_TYPING_MS = 5000;
const LOCAL_TYPING_IDLE_MS = 2000;

export function VisitorFrame({ children, links }: { children: React.ReactNode; links?: { privacy: string; terms: string } }) {
  const { t } = useTranslation();
  return (
    <main className="visitor-page">
      <section className="visitor-card">{children}</section>
      {links ? (
        <footer className="visitor-links">
          <a href={links.privacy} target="_blank" rel="noopener noreferrer">
            {t("livechat.privacy")}
          </a>{" "}
          ·{" "}
          <a href={links.terms} target="_blank" rel="noopener noreferrer">
            {t("livechat.terms")}
          </a>
        </footer>
      ) : null}
    </main>
  );
}

/**
 * The page could not reach the server (a reload while it restarts): 'Connecting to server...'
 * and another try every second, as the socket does.
 */
export function VisitorOffline() {
  const { t } = useTranslation();
  useEffect(() => {
    const timer = setInterval(async () => {
      try {
        if ((await fetch(window.location.href, { method: "HEAD", cache: "no-store" })).status < 500) window.location.reload();
      } catch {
        // still away
      }
    }, RECONNECT_MS);
    return () => clearInterval(timer);
  }, []);
  return (
    <VisitorFrame>
      <p className="connection-banner" role="status">
        {t("livechat.connecting")}
      </p>
    </VisitorFrame>
  );
}

export function VisitorInvalid() {
  const { t } = useTranslation();
  return (
    <VisitorFrame>
      <h1>{t("livechat.invalidTitle")}</h1>
      <p>{t("livechat.invalidBody")}</p>
    </VisitorFrame>
  );
}

/** For the few attributes written as HTML text (inside <noscript>, which React does not render on the client). */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A short ping (Web Audio, volume 1): no sound file to fetch. */
function ping() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    gain.gain.value = 1;
    tone.frequency.value = 880;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch {
    // no audio (autoplay rules): the text says it too
  }
}

type Connection = "connecting" | "connected" | "retrying";

/**
 * The visitor's socket: news about their own chat only; `refresh` refetches the page's data.
 * (A fetcher, not a revalidation: if the server is away at that moment, only this route's error
 * boundary shows, and it tries again every second.)
 */
function useVisitorSocket(data: VisitorPageData, refresh: () => void) {
  const latest = useRef({ revalidate: refresh });
  latest.current = { revalidate: refresh };
  const [connection, setConnection] = useState<Connection>("connecting");
  const [queueNumber, setQueueNumber] = useState<number | null>(data.queueNumber);
  const [acceptedBy, setAcceptedBy] = useState<string | null>(null);
  const [typing, setTyping] = useState<{ name: string; at: number } | null>(null);
  const socketRef = useRef<Socket>();
  const live = data.state === "queued" || data.state === "active";
  useEffect(() => setQueueNumber(data.queueNumber), [data.queueNumber]);
  useEffect(() => {
    if (!live) return;
    let socket: Socket | undefined;
    let stopped = false;
    let openTimer: ReturnType<typeof setTimeout> | undefined;
    void import("socket.io-client").then(({ io }) => {
      if (stopped) return;
      socket = io("/visitor", { auth: { token: data.token }, reconnectionDelay: RECONNECT_MS, reconnectionDelayMax: RECONNECT_MS, randomizationFactor: 0 });
      socketRef.current = socket;
      socket.on("connect", () => {
        setConnection("connected");
        socket!.emit(CLIENT_EVENTS.registerQueue, { token: data.token, csrf: data.csrf });
        // whatever happened while away
        latest.current.revalidate();
      });
      socket.on("disconnect", () => setConnection("retrying"));
      socket.on("connect_error", () => setConnection("retrying"));
      socket.on(SERVER_EVENTS.queueNumber, (e: { number: number }) => setQueueNumber(e.number));
      socket.on(SERVER_EVENTS.queueAccepted, (e: { name: string }) => {
        setAcceptedBy(e.name);
        ping();
        openTimer = setTimeout(() => latest.current.revalidate(), OPEN_AFTER_ACCEPT_MS);
      });
      for (const event of VISITOR_EVENTS) socket.on(event, () => latest.current.revalidate());
      socket.on(SERVER_EVENTS.setTyping, (e: { name: string }) => setTyping({ name: e.name, at: Date.now() }));
      socket.on(SERVER_EVENTS.removeTyping, () => setTyping(null));
    });
    return () => {
      stopped = true;
      clearTimeout(openTimer);
      socket?.disconnect();
      socketRef.current = undefined;
    };
  }, [live, data.token, data.csrf]);
  // a remote typing notice fades after 5 s without news
  useEffect(() => {
    if (!typing) return;
    const timer = setTimeout(() => setTyping(null), REMOTE_TYPING_MS);
    return () => clearTimeout(timer);
  }, [typing]);
  return { connection: live ? connection : "connected", queueNumber, acceptedBy, typing: typing?.name ?? null, socket: socketRef };
}

export function VisitorChat({ data: initial }: { data: VisitorPageData }) {
  const { t } = useTranslation();
  const refresher = useFetcher<{ page: string; visitor?: VisitorPageData }>();
  const fresh = refresher.data?.visitor;
  // the newer of the page's data (after a form) and the last refresh (after news)
  const data = fresh && fresh.at > initial.at ? fresh : initial;
  const live = useVisitorSocket(data, () => refresher.load(`/livechat/${initial.token}`));
  // inside the embed script's frame: the website reopens this chat next time, while it runs
  const running = data.state === "new" || data.state === "queued" || data.state === "active";
  useEffect(() => {
    if (window.parent !== window) window.parent.postMessage({ type: "omnidesk:livechat:visit", token: running ? data.token : null }, "*");
  }, [data.token, running]);
  const e2ee = useVisitorE2ee(data, running);
  const links = data.links;
  return (
    <VisitorFrame links={links}>
      {live.connection === "retrying" ? (
        <p className="connection-banner" role="status">
          {t("livechat.connecting")}
        </p>
      ) : null}
      <Screen data={data} live={live} e2ee={e2ee} />
    </VisitorFrame>
  );
}

/**
 * End-to-end encryption on the visitor's side (visitor-e2ee.ts): this browser's key published to
 * the chat while it waits or runs, and each sealed message opened (`opened`: its text, or null
 * when it cannot be opened here).
 */
function useVisitorE2ee(data: VisitorPageData, running: boolean) {
  const client = useRef<VisitorE2ee>();
  if (typeof window !== "undefined" && !client.current && typeof crypto !== "undefined" && crypto.subtle)
    client.current = new VisitorE2ee(data.token, data.csrf);
  const [opened, setOpened] = useState<ReadonlyMap<number, string | null>>(new Map());
  const serverFingerprint = data.e2ee?.fingerprint ?? null;
  const hasChat = !!data.e2ee;
  useEffect(() => {
    if (!running || !hasChat || !client.current) return;
    client.current.publish(serverFingerprint).catch((error) => console.error("e2ee", error));
  }, [running, hasChat, serverFingerprint]);
  const ticketId = data.e2ee?.ticketId ?? 0;
  const asked = useRef(new Set<number>());
  useEffect(() => {
    const c = client.current;
    if (!c || !ticketId) return;
    for (const m of data.messages)
      if (m.sealed && !asked.current.has(m.id)) {
        asked.current.add(m.id);
        void c.open(ticketId, m.sealed).then((text) => setOpened((before) => new Map(before).set(m.id, text)));
      }
  }, [data.messages, ticketId]);
  return { client: client.current, opened };
}
type VisitorEncryption = ReturnType<typeof useVisitorE2ee>;

function Screen({ data, live, e2ee }: { data: VisitorPageData; live: ReturnType<typeof useVisitorSocket>; e2ee: VisitorEncryption }) {
  const { t } = useTranslation();
  switch (data.result) {
    case "converted":
      return <EndScreen title={t("livechat.convertedTitle")} body={t("livechat.convertedBody")} />;
    case "closed":
      return data.state === "sent" ? (
        <EndScreen title={t("livechat.sentTitle")} body={t("livechat.sentBody")} />
      ) : (
        <EndScreen title={t("livechat.endedTitle")} body={data.rating !== null ? t("livechat.thanksRating") : ""} />
      );
    case "rating":
      return <RatingForm data={data} />;
    default:
      break;
  }
  if (data.state === "new")
    return (
      <div className="visitor-intro">
        <h1>{t("livechat.title")}</h1>
        <p>{t("livechat.connectingTo")}</p>
        <p className="agent">
          <img src={data.identity.photo} alt="" width={48} height={48} /> <strong>{data.identity.name}</strong>
        </p>
        <Link className="button primary" to={`/register/livechat/${data.token}`}>
          {t("livechat.continue")}
        </Link>
      </div>
    );
  if (data.state === "queued")
    return (
      <div className="visitor-queue" role="status">
        {/* without JavaScript the page asks again every 5 s */}
        <noscript dangerouslySetInnerHTML={{ __html: '<meta http-equiv="refresh" content="5">' }} />
        <h1>{t("livechat.title")}</h1>
        {live.acceptedBy ? (
          <p className="accepted">{t("livechat.accepted", { name: live.acceptedBy })}</p>
        ) : (
          <>
            <p className="queue-number">{t("livechat.queueNumber", { number: live.queueNumber ?? 1 })}</p>
            <p className="muted">{t("livechat.queueWarning")}</p>
          </>
        )}
        <EndButton data={data} />
      </div>
    );
  return <ChatScreen data={data} live={live} e2ee={e2ee} />;
}

function EndScreen({ title, body }: { title: string; body: string }) {
  const { t } = useTranslation();
  return (
    <div className="visitor-end" role="status">
      <h1>{title}</h1>
      {body ? <p>{body}</p> : null}
      <Link className="button" to="/end/livechat">
        {t("livechat.close")}
      </Link>
    </div>
  );
}

function EndButton({ data }: { data: VisitorPageData }) {
  const { t } = useTranslation();
  return (
    <Form method="post" className="inline">
      <input type="hidden" name="_token" value={data.csrf} />
      <input type="hidden" name="intent" value="end" />
      <button type="submit" className="button">
        {t("livechat.endChat")}
      </button>
    </Form>
  );
}

function ChatScreen({ data, live, e2ee }: { data: VisitorPageData; live: ReturnType<typeof useVisitorSocket>; e2ee: VisitorEncryption }) {
  const { t } = useTranslation();
  const fetcher = useFetcher();
  // a sealed message's text stays here only (the server gets ciphertext): shown while it goes,
  // and given back to the box if it is refused
  const [draft, setDraft] = useState("");
  const [sealError, setSealError] = useState("");
  const [scripted, setScripted] = useState(false);
  useEffect(() => setScripted(true), []);
  const navResult = useActionData();
  // sent with JavaScript by the fetcher, without it by the page's own post
  const result = readFormResult(fetcher.data ?? navResult);
  const form = useRef<HTMLFormElement>(null);
  // a message whose answer was lost goes again with its key (stored once)
  useResendWhenLost(result, () => form.current);
  const list = useRef<HTMLOListElement>(null);
  const typingState = useRef<{ last: number; idle?: ReturnType<typeof setTimeout> }>({ last: 0 });
  const pending = fetcher.state !== "idle" ? String(fetcher.formData?.get("message") ?? "") || draft : "";
  const box = () => form.current?.elements.namedItem("message") as HTMLTextAreaElement | null;
  const focusLost = () => !document.activeElement || document.activeElement === document.body;
  // the chat opens from the queue's screen, which took the focus with it: the message box has it
  useEffect(() => {
    if (focusLost()) box()?.focus();
  }, []);
  // a sent message clears the box; a refused one stays (the server returns it, in a box drawn anew
  // that gets the focus back)
  const sending = useRef(false);
  useEffect(() => {
    if (fetcher.state !== "idle") sending.current = true;
    else if (sending.current) {
      sending.current = false;
      if (!readFormResult(fetcher.data)) {
        form.current?.reset();
        const b = box();
        if (b) b.value = "";
        setDraft("");
      }
      if (focusLost()) box()?.focus();
    }
  }, [fetcher.state, fetcher.data]);
  useEffect(() => {
    list.current?.lastElementChild?.scrollIntoView({ block: "end" });
  }, [data.messages.length, pending]);
  const onType = () => {
    const socket = live.socket.current;
    if (!socket) return;
    const s = typingState.current;
    if (Date.now() - s.last > 1000) {
      socket.emit(CLIENT_EVENTS.sendTyping);
      s.last = Date.now();
    }
    clearTimeout(s.idle);
    s.idle = setTimeout(() => {
      socket.emit(CLIENT_EVENTS.removeTyping);
      s.last = 0;
    }, LOCAL_TYPING_IDLE_MS);
  };
  const errors = result?.errors ?? {};
  // every send asks the chat's encryption first (an agent may have turned it on since the page
  // loaded): sealed, the text never leaves this browser
  const onSubmit = (event: React.FormEvent<HTMLFormElement>) => {
    const c = e2ee.client;
    if (!c) return;
    event.preventDefault();
    const formData = new FormData(event.currentTarget);
    const text = String(formData.get("message") ?? "").trim();
    if (!text) return;
    setSealError("");
    c.seal(text).then(
      (sealed) => {
        if (sealed) {
          formData.set("message", "");
          for (const [name, value] of Object.entries(sealed)) formData.set(name, value);
          setDraft(text);
        }
        fetcher.submit(formData, { method: "post" });
      },
      (error) => setSealError(error instanceof VisitorE2eeError && error.message.startsWith("livechat.") ? error.message : "livechat.e2eeMissingKey"),
    );
  };
  const encrypted = !!data.e2ee?.encryption;
  return (
    <div className="visitor-chat">
      <header className="row">
        <h1>{t("livechat.title")}</h1>
        <EndButton data={data} />
      </header>
      {/* without JavaScript the list below is replaced by a frame that refreshes itself */}
      <noscript
        dangerouslySetInnerHTML={{
          __html: `<style>.live-messages{display:none}</style><iframe class="messages-frame" src="/livechat/${escapeHtml(encodeURIComponent(data.token))}/messages" title="${escapeHtml(t("livechat.messages"))}"></iframe>`,
        }}
      />
      {/* what encryption means for this visitor: without JavaScript there is no key in this browser */}
      {/* (hidden unless scripts are off: a noscript style shows it, outside noscript for screen readers and tests) */}
      <noscript dangerouslySetInnerHTML={{ __html: "<style>[data-noscript-note]{display:block !important}</style>" }} />
      <p className="notice" data-noscript-note="" hidden>
        {t(encrypted ? "livechat.encryptedNeedsScript" : "livechat.e2eeNoScript")}
      </p>
      {encrypted && scripted ? (
        <p className="muted" data-e2ee-visitor="on">
          {t("livechat.e2eeOn")}
        </p>
      ) : null}
      <VisitorMessages messages={data.messages} listRef={list} pending={pending} opened={e2ee.opened} />
      <p className="typing muted" aria-live="polite">
        {live.typing ? t("livechat.typing", { name: live.typing }) : "\u00a0"}
      </p>
      <fetcher.Form method="post" ref={form} className="stack" noValidate onSubmit={onSubmit}>
        <input type="hidden" name="_token" value={data.csrf} />
        <input type="hidden" name="intent" value="send" />
        <RequestKeyInput kept={result?.values[REQUEST_KEY_FIELD_NAME]} />
        <FormMessage result={result} />
        {sealError ? (
          <p className="form-error" role="alert" data-e2ee-say="error">
            {t(sealError)}
          </p>
        ) : null}
        <label className="sr-only" htmlFor="visitor-message">
          {t("livechat.message")}
        </label>
        <textarea
          id="visitor-message"
          name="message"
          rows={3}
          defaultValue={result?.values.message || draft}
          key={result?.values.message || (result ? draft : "box")}
          placeholder={t("livechat.typeMessage")}
          onInput={onType}
          aria-invalid={!!errors.message}
          aria-describedby={errors.message ? "visitor-message-error" : undefined}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
        />
        {errors.message ? (
          <p className="field-error" id="visitor-message-error">
            {t(errors.message, result?.messageValues)}
          </p>
        ) : null}
        <button type="submit" className="button primary">
          {t("livechat.send")}
        </button>
      </fetcher.Form>
    </div>
  );
}

export function VisitorMessages({
  messages,
  listRef,
  pending,
  opened,
}: {
  messages: VisitorPageData["messages"];
  listRef?: React.Ref<HTMLOListElement>;
  pending?: string;
  /** Sealed messages this browser opened (null: could not). */
  opened?: ReadonlyMap<number, string | null>;
}) {
  const { t } = useTranslation();
  return (
    <ol className="live-messages" ref={listRef} aria-label={t("livechat.messages")}>
      {messages.map((m) => (
        <li key={m.id} className={m.mine ? "mine" : "theirs"} data-message-id={m.id}>
          <span className="sender">{m.mine ? t("livechat.you") : m.sender}</span>
          {m.sealed ? <SealedBody text={opened?.get(m.id)} /> : <span className="body">{m.fileName ? t("livechat.file", { name: m.fileName }) : m.body}</span>}
        </li>
      ))}
      {pending ? (
        <li className="mine sending" aria-busy="true">
          <span className="sender">{t("livechat.you")}</span>
          <span className="body">{pending}</span>
        </li>
      ) : null}
    </ol>
  );
}

/** A sealed message: its text once opened here; without JavaScript (or before) what it is. */
function SealedBody({ text }: { text: string | null | undefined }) {
  const { t } = useTranslation();
  if (text === undefined)
    return (
      <span className="body muted" data-e2ee-state="sealed">
        {t("livechat.e2eeMessage")}
      </span>
    );
  if (text === null)
    return (
      <span className="body field-error" data-e2ee-state="undecryptable">
        {t("livechat.e2eeUndecryptable")}
      </span>
    );
  return (
    <span className="body" data-e2ee-state="decrypted">
      {text}
    </span>
  );
}

function RatingForm({ data }: { data: VisitorPageData }) {
  const { t } = useTranslation();
  const result = useFormResult();
  const errors = result?.errors ?? {};
  const chosen = result?.values.rating ?? "";
  return (
    <div className="visitor-rating">
      <h1>{t("livechat.endedTitle")}</h1>
      <p>{t("livechat.rateTitle")}</p>
      <Form method="post" className="stack" noValidate>
        <input type="hidden" name="_token" value={data.csrf} />
        <input type="hidden" name="intent" value="rate" />
        <FormMessage result={result} />
        <fieldset className="stars" aria-invalid={!!errors.rating} aria-describedby={errors.rating ? "rating-error" : undefined}>
          <legend>{t("livechat.rating")}</legend>
          {[1, 2, 3, 4, 5].map((n) => (
            <label key={n}>
              <input type="radio" name="rating" value={n} defaultChecked={chosen === String(n)} />
              <span aria-hidden="true">{"★".repeat(n)}</span>
              <span className="sr-only">{t("livechat.stars", { count: n })}</span>
            </label>
          ))}
        </fieldset>
        {errors.rating ? (
          <p className="field-error" id="rating-error">
            {t(errors.rating, result?.messageValues)}
          </p>
        ) : null}
        <label>
          {t("livechat.reason")}
          <textarea
            name="reason"
            rows={3}
            maxLength={2000}
            defaultValue={result?.values.reason ?? ""}
            aria-invalid={!!errors.reason}
            aria-describedby={errors.reason ? "reason-error" : undefined}
          />
        </label>
        {errors.reason ? (
          <p className="field-error" id="reason-error">
            {t(errors.reason, result?.messageValues)}
          </p>
        ) : null}
        <button type="submit" className="button primary">
          {t("livechat.submit")}
        </button>
      </Form>
    </div>
  );
}
