// The encrypted conversation in the browser, on top of the host's conversation page (which marks
// it: `.conversation[data-encryption]`, each encrypted message `[data-e2ee-message]` with its
// envelope, the `[data-composer-slot]` above the reply form `#reply`):
// - opens each message and private note with the conversation key of its version (unwrapped with
//   this browser's private key, or for `encryption_method` 'aes' derived from the passphrase the
//   participants share), refusing a tampered one, an old key version after a newer one, a replayed
//   id: 'Message could not be decrypted';
// - seals a private note like a message, bound to the message it is on;
// - seals the reply (text, and each file before upload) with the current key version, making the
//   next version first when the participants changed (wrapped only for those still in);
// - without the key here: the spec's missing-key text, sending blocked, the draft kept;
// - a participant's key changed since last seen, or does not match the fingerprint the server
//   claims for it (a swapped key): a warning before sending, flagged beside the safety numbers;
// - shares earlier key versions with someone added later, when a participant chooses to.
import {
  decryptFile,
  decryptMessage,
  deriveSharedKey,
  encryptFile,
  encryptMessage,
  fingerprintOf,
  keyCheckMatches,
  makeKeyCheck,
  safetyNumber,
  newClientId,
  newConversationKey,
  rewrapConversationKey,
  unwrapConversationKey,
  wrapConversationKey,
  type MessageContext,
  type Part,
} from "../crypto";
import { ALLOWED_TYPES, MAX_FILE_BYTES } from "~/file-types";
import { ENCRYPTED_FILE_NAME, ENCRYPTED_FILE_TYPE } from "~/conversation/encrypted";
import { api, ApiError, loadIdentity, loadSharedKey, markSeen, saveSharedKey, seenFingerprint, type StoredIdentity } from "./keystore";

type T = (key: string, values?: Record<string, string>) => string;

interface Participant {
  userId: number;
  username: string;
  name: string;
  publicKey: string | null;
  /** Computed here from publicKey (the one to trust). */
  fingerprint: string | null;
  /** What the server says the fingerprint is. */
  serverFingerprint: string | null;
  previousFingerprints: string[];
  /** The key versions wrapped for them. */
  versions: number[];
}

interface ConversationKeys {
  ticketId: number;
  fingerprint: string | null;
  encryption: boolean;
  method: string;
  version: number;
  rekey: boolean;
  participants: Participant[];
  keys: { version: number; wrappedKey: string; fingerprint: string }[];
  /** Earlier versions others shared with this user, not taken yet (one may be forged: tried on that version's messages first). */
  offered: { version: number; sharedBy: number; wrappedKey: string; fingerprint: string }[];
  shared: { salt: string; iterations: number; check: string | null } | null;
  /** A live chat's visitor: the key their browser made (fingerprint computed here, as for participants). */
  visitor: { name: string; publicKey: string; fingerprint: string; versions: number[] } | null;
}

interface State {
  keys: ConversationKeys;
  identity: StoredIdentity | null;
  /** encryption_method 'aes': the passphrase-derived key, once entered on this browser. */
  sharedKey: CryptoKey | null;
  unwrapped: Map<number, Promise<CryptoKey | null>>;
  /** How many messages (system ones too) the page showed when this was fetched. */
  shown: number;
}

const shownMessages = (root: ParentNode) => root.querySelectorAll(".system-message, [data-e2ee-message]").length;

/** Whether this browser holds what opens the conversation (its identity key, or the shared key for 'aes'). */
const ready = (state: State) => (state.keys.method === "aes" ? !!state.sharedKey : !!state.identity);

export class E2eeClient {
  private states = new Map<number, Promise<State>>();
  private observer: MutationObserver | null = null;
  private scheduled = false;
  private sending = false;
  /** Warnings acknowledged (per conversation, the fingerprints checked). */
  private acknowledged = new Map<number, string>();

  constructor(
    private userId: number,
    private t: T,
  ) {}

  start() {
    this.observer = new MutationObserver(() => this.schedule());
    this.observer.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-key-version", "data-rekey"] });
    document.addEventListener("submit", this.onSubmit, true);
    this.schedule();
  }

  stop() {
    this.observer?.disconnect();
    document.removeEventListener("submit", this.onSubmit, true);
  }

  /** Forget what was fetched (a key was set up or restored on this page, or a new version came). */
  reset(ticketId?: number) {
    if (ticketId === undefined) this.states.clear();
    else this.states.delete(ticketId);
    this.schedule();
  }

  private schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      void this.scan().catch((error) => console.error("e2ee", error));
    });
  }

  private conversation(): HTMLElement | null {
    return document.querySelector<HTMLElement>(".conversation[data-encryption][data-ticket-id]");
  }

  private state(ticketId: number, fresh = false): Promise<State> {
    let s = fresh ? undefined : this.states.get(ticketId);
    if (!s) {
      s = (async () => {
        const [keys, identity] = await Promise.all([api<ConversationKeys>(`/api/e2ee/conversation/${ticketId}`), loadIdentity(this.userId)]);
        // fingerprints are computed here from the keys this browser will wrap for, never taken from
        // the server's word: a key the server swaps shows as a changed key before anything is sent
        for (const p of keys.participants) {
          p.serverFingerprint = p.fingerprint;
          p.fingerprint = p.publicKey ? await fingerprintOf(p.publicKey) : null;
        }
        if (keys.visitor) keys.visitor.fingerprint = await fingerprintOf(keys.visitor.publicKey);
        // a key here that is not the published one (replaced on another browser) opens nothing
        const usable = identity && keys.fingerprint === identity.fingerprint ? identity : null;
        let sharedKey = keys.shared ? await loadSharedKey(this.userId, ticketId) : null;
        if (sharedKey && keys.shared?.check && !(await keyCheckMatches(sharedKey, ticketId, keys.shared.check))) sharedKey = null;
        return { keys, identity: usable, sharedKey, unwrapped: new Map(), shown: shownMessages(document) };
      })();
      this.states.set(ticketId, s);
      s.catch(() => this.states.delete(ticketId));
    }
    return s;
  }

  private keyOf(state: State, version: number): Promise<CryptoKey | null> {
    // one key, from the shared passphrase
    if (state.keys.method === "aes") return Promise.resolve(version === 1 ? state.sharedKey : null);
    let k = state.unwrapped.get(version);
    if (!k) {
      const wrapped = state.keys.keys.find((w) => w.version === version);
      k =
        wrapped && state.identity && wrapped.fingerprint === state.identity.fingerprint
          ? unwrapConversationKey(wrapped.wrappedKey, state.identity.privateKey).catch(() => null)
          : this.fromOffers(state, version);
      state.unwrapped.set(version, k);
    }
    return k;
  }

  /**
   * An earlier version shared with this user: each offered key is tried on up to 3 of that
   * version's messages on the page; the first that opens one is taken (the server keeps it as
   * this user's), and one that opens none is refused (forged, or for another key) and dropped.
   */
  private async fromOffers(state: State, version: number): Promise<CryptoKey | null> {
    const identity = state.identity;
    const offers = (state.keys.offered ?? []).filter((o) => o.version === version && o.fingerprint === identity?.fingerprint);
    const samples = [...document.querySelectorAll<HTMLElement>(`[data-e2ee-message][data-e2ee-version="${version}"]`)].slice(0, 3);
    if (!identity || !offers.length || !samples.length) return null;
    const ticketId = state.keys.ticketId;
    for (const offer of offers) {
      const key = await unwrapConversationKey(offer.wrappedKey, identity.privateKey).catch(() => null);
      let opens = false;
      for (const el of samples)
        if (key && !opens)
          opens = await decryptMessage(key, { ticketId, version, clientId: el.dataset.e2eeClientId ?? "" }, el.dataset.e2eeCipher ?? "").then(
            () => true,
            () => false,
          );
      await api(`/api/e2ee/offer/${ticketId}`, { json: { version, sharedBy: offer.sharedBy, opens } }).catch((error) => console.error("e2ee", error));
      if (opens) return key;
    }
    return null;
  }

  private async scan() {
    const root = this.conversation();
    if (!root) return;
    const ticketId = Number(root.dataset.ticketId);
    let state = await this.state(ticketId);
    const pageVersion = Number(root.dataset.keyVersion ?? 0);
    const items = [...root.querySelectorAll<HTMLElement>("[data-e2ee-message]")];
    // a message sealed with a version this browser has not fetched yet: fetch again, once
    if (pageVersion > state.keys.version || items.some((el) => Number(el.dataset.e2eeVersion) > state.keys.version)) state = await this.state(ticketId, true);
    // something new on the page while messages of versions this browser lacks are shown: earlier
    // versions may have been shared with this user meanwhile
    else if (
      shownMessages(root) > state.shown &&
      state.keys.method === "rsa" &&
      items.some((el) => !state.keys.keys.some((k) => k.version === Number(el.dataset.e2eeVersion)))
    )
      state = await this.state(ticketId, true);
    this.showComposerState(root, state);
    void this.drawSafetyNumbers(state);
    this.keyLiveChat(ticketId, state);
    let newest = 0;
    const ids = new Set<string>();
    const done = (el: HTMLElement, version: number) => {
      // a new key or a new offer of one (a share) may open what could not be opened before
      const mark = `${version}:${ready(state) ? "k" : "-"}:${state.keys.keys.length}:${state.keys.offered?.length ?? 0}`;
      if (el.dataset.e2eeDone === mark) return true;
      el.dataset.e2eeDone = mark;
      return false;
    };
    for (const el of items) {
      const version = Number(el.dataset.e2eeVersion);
      const clientId = el.dataset.e2eeClientId ?? "";
      // messages come in id order: one sealed with an older version than an earlier message's is
      // an old key used after a participant left; an id seen before is a replay
      const suspicious = version < newest || ids.has(clientId);
      newest = Math.max(newest, version);
      ids.add(clientId);
      if (!done(el, version)) void this.open(el, state, { ticketId, version, clientId }, suspicious);
    }
    // private notes: bound to their message (the server keeps each note's id unique per message)
    for (const el of root.querySelectorAll<HTMLElement>("[data-e2ee-note]")) {
      const version = Number(el.dataset.e2eeVersion);
      if (!done(el, version))
        void this.open(el, state, { ticketId, version, clientId: el.dataset.e2eeClientId ?? "" }, false, { note: Number(el.dataset.e2eeOn) });
    }
  }

  /**
   * The safety numbers as this browser computes them from the keys it encrypts for, in the panel:
   * the only ones to compare out of band (a server that swapped a key could show matching numbers
   * of its own). A key whose fingerprint is not the one the server claims for it is flagged; and
   * someone who lacks earlier key versions this browser holds can be given them.
   */
  private async drawSafetyNumbers(state: State) {
    const panel = document.querySelector<HTMLElement>('[data-panel="e2ee"]');
    const mine = state.identity?.fingerprint;
    if (!panel || !mine || state.keys.method !== "rsa") return;
    const lines: { text: string; flagged: boolean; share?: Participant }[] = [];
    const held = state.keys.keys.map((k) => k.version);
    for (const p of state.keys.participants) {
      if (p.userId === this.userId || !p.fingerprint) continue;
      const flagged = p.fingerprint !== p.serverFingerprint;
      lines.push({
        text: this.t(flagged ? "plugin_e2ee.client.safetyMismatch" : "plugin_e2ee.client.safety", {
          name: p.name,
          number: await safetyNumber(mine, p.fingerprint),
        }),
        flagged,
        share: !flagged && held.some((v) => !p.versions.includes(v)) ? p : undefined,
      });
    }
    const signature = JSON.stringify(lines.map((l) => [l.text, l.flagged, !!l.share]));
    let list = panel.querySelector<HTMLUListElement>("ul[data-e2ee-safety]");
    if (!list) {
      list = document.createElement("ul");
      list.dataset.e2eeSafety = "";
      panel.append(list);
    }
    if (list.dataset.lines === signature) return;
    list.dataset.lines = signature;
    list.replaceChildren(
      ...lines.map((line) => {
        const item = document.createElement("li");
        item.textContent = line.text;
        if (line.flagged) {
          item.className = "form-error";
          item.setAttribute("role", "alert");
          item.dataset.e2eeMismatch = "";
        }
        if (line.share) item.append(" ", this.shareButton(state, line.share));
        return item;
      }),
    );
  }

  /**
   * A live chat's visitor cannot make a key version (they hold no one's public key): the agent's
   * browser makes it as soon as one is due (encryption turned on, the visitor's or someone's key
   * changed), not on its next send, so the visitor can write first.
   */
  private rekeying = new Set<number>();
  private keyLiveChat(ticketId: number, state: State) {
    const k = state.keys;
    if (!k.visitor || !k.encryption || k.method !== "rsa" || !(k.rekey || k.version === 0) || !ready(state) || this.rekeying.has(ticketId)) return;
    // (it stays in the set after a failure: the next send tries again and says why)
    this.rekeying.add(ticketId);
    void this.withCurrentKey(ticketId, state, async () => {}).then(
      () => {
        this.rekeying.delete(ticketId);
        this.reset(ticketId);
      },
      (error) => console.error("e2ee", error),
    );
  }

  /** Gives a participant the key versions this browser holds and they lack (they then read the earlier messages). */
  private shareButton(state: State, p: Participant) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "button";
    button.dataset.e2eeShare = String(p.userId);
    button.textContent = this.t("plugin_e2ee.client.share", { name: p.name });
    button.addEventListener("click", () => {
      button.disabled = true;
      void (async () => {
        try {
          const keys = [];
          for (const k of state.keys.keys)
            if (!p.versions.includes(k.version))
              keys.push({
                version: k.version,
                wrappedKey: await rewrapConversationKey(k.wrappedKey, state.identity!.privateKey, p.publicKey!),
                fingerprint: p.fingerprint!,
              });
          await api(`/api/e2ee/share/${state.keys.ticketId}`, { json: { userId: p.userId, keys } });
          button.replaceWith(
            Object.assign(document.createElement("span"), { className: "muted", textContent: this.t("plugin_e2ee.client.shared", { name: p.name }) }),
          );
          this.reset(state.keys.ticketId);
        } catch (error) {
          button.disabled = false;
          button.after(
            Object.assign(document.createElement("span"), {
              className: "field-error",
              textContent: this.t("plugin_e2ee.client.failed", { error: error instanceof Error ? error.message : String(error) }),
            }),
          );
        }
      })();
    });
    return button;
  }

  private output(el: HTMLElement) {
    const fallback = el.querySelector<HTMLElement>("[data-e2ee-text]");
    if (fallback) fallback.hidden = true;
    let out = el.querySelector<HTMLElement>("[data-e2ee-out]");
    if (!out) {
      // a note sits inline in its list item
      out = document.createElement(el.tagName === "SPAN" ? "span" : "div");
      out.dataset.e2eeOut = "";
      el.appendChild(out);
    }
    out.replaceChildren();
    return out;
  }

  private async open(el: HTMLElement, state: State, context: MessageContext, suspicious: boolean, part: Part = "message") {
    const out = () => this.output(el);
    const inline = el.tagName === "SPAN";
    const fail = (text: string) => {
      const p = document.createElement(inline ? "span" : "p");
      p.className = "field-error";
      p.dataset.e2eeState = "undecryptable";
      p.textContent = text;
      out().appendChild(p);
    };
    if (!ready(state)) {
      const p = document.createElement(inline ? "span" : "p");
      p.className = "muted";
      p.dataset.e2eeState = "missing-key";
      p.textContent = this.t("plugin_e2ee.client.missingKey");
      out().appendChild(p);
      return;
    }
    const key = suspicious ? null : await this.keyOf(state, context.version);
    if (!key) return fail(this.t("plugin_e2ee.client.undecryptable"));
    let payload;
    try {
      payload = await decryptMessage(key, context, el.dataset.e2eeCipher ?? "", part);
    } catch {
      return fail(this.t("plugin_e2ee.client.undecryptable"));
    }
    const box = out();
    if (payload.text) {
      const p = document.createElement(inline ? "span" : "p");
      p.className = inline ? "" : "text-body";
      p.dataset.e2eeState = "decrypted";
      p.textContent = payload.text;
      box.appendChild(p);
    }
    const fileUrl = el.dataset.e2eeFile;
    if (payload.file && fileUrl) {
      const file = payload.file;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link-button file-link";
      button.dataset.e2eeState = "decrypted";
      button.textContent = this.t("plugin_e2ee.client.download", { name: file.name, size: String(Math.max(1, Math.round(file.size / 1024))) });
      button.addEventListener("click", () => {
        void (async () => {
          try {
            const sealed = await (await fetch(fileUrl, { credentials: "same-origin" })).arrayBuffer();
            const plain = await decryptFile(key, context, sealed);
            const url = URL.createObjectURL(new Blob([plain], { type: file.type }));
            const a = document.createElement("a");
            a.href = url;
            a.download = file.name;
            document.body.appendChild(a);
            a.click();
            a.remove();
            setTimeout(() => URL.revokeObjectURL(url), 60_000);
          } catch {
            button.replaceWith(
              Object.assign(document.createElement("p"), { className: "field-error", textContent: this.t("plugin_e2ee.client.undecryptable") }),
            );
          }
        })();
      });
      box.appendChild(button);
    }
  }

  private slot(root: HTMLElement) {
    return root.querySelector<HTMLElement>("[data-composer-slot]");
  }

  /** The missing-key text above the reply box (and sending blocked) while this browser has no key. */
  private showComposerState(root: HTMLElement, state: State) {
    const slot = this.slot(root);
    if (!slot) return;
    const missing = slot.querySelector("[data-e2ee-missing]");
    if (ready(state)) {
      missing?.remove();
      return;
    }
    if (missing) return;
    const p = document.createElement("div");
    p.className = "form-error";
    p.dataset.e2eeMissing = "";
    p.append(this.t("plugin_e2ee.client.missingKey"), " ");
    if (state.keys.shared) p.append(this.passphraseForm(root, state.keys.ticketId, !state.keys.shared.check));
    else {
      const link = document.createElement("a");
      link.href = "/e2ee/keys";
      link.textContent = this.t("plugin_e2ee.client.setup");
      p.appendChild(link);
    }
    slot.appendChild(p);
  }

  /**
   * encryption_method 'aes': the conversation's passphrase, entered here (it never leaves this
   * browser). The first one to enter it chooses it (typed twice) and stores the key-check value;
   * after that a wrong one is told apart by that value.
   */
  private passphraseForm(root: HTMLElement, ticketId: number, first: boolean) {
    const form = document.createElement("form");
    form.className = "stack";
    form.dataset.e2eePassphrase = "";
    const field = (name: string, label: string) => {
      const l = document.createElement("label");
      const input = Object.assign(document.createElement("input"), { type: "password", name, required: true, minLength: 10, autocomplete: "off" });
      l.append(label, input);
      return l;
    };
    const intro = Object.assign(document.createElement("p"), {
      textContent: this.t(first ? "plugin_e2ee.client.sharedFirst" : "plugin_e2ee.client.sharedEnter"),
    });
    const error = Object.assign(document.createElement("p"), { className: "field-error", hidden: true });
    error.setAttribute("role", "alert");
    const button = Object.assign(document.createElement("button"), {
      type: "submit",
      className: "button",
      textContent: this.t("plugin_e2ee.client.sharedSubmit"),
    });
    form.append(intro, field("passphrase", this.t("plugin_e2ee.client.sharedPassphrase")));
    if (first) form.append(field("confirm", this.t("plugin_e2ee.keys.confirm")));
    form.append(error, button);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const data = new FormData(form);
      const pass = String(data.get("passphrase") ?? "");
      const fail = (key: string) => Object.assign(error, { hidden: false, textContent: this.t(key) });
      if (pass.length < 10) return fail("plugin_e2ee.keys.short");
      if (first && data.get("confirm") !== pass) return fail("plugin_e2ee.keys.mismatch");
      button.disabled = true;
      void (async () => {
        try {
          if (!(await this.enterPassphrase(ticketId, pass))) return fail("plugin_e2ee.client.sharedWrong");
          root.querySelector("[data-e2ee-missing]")?.remove();
          this.reset(ticketId);
        } finally {
          button.disabled = false;
        }
      })();
    });
    return form;
  }

  /** Derives the shared key; stores the key-check value if nobody has yet. False: a wrong passphrase. */
  private async enterPassphrase(ticketId: number, passphrase: string) {
    let keys = await api<ConversationKeys>(`/api/e2ee/conversation/${ticketId}`);
    if (!keys.shared) return false;
    const key = await deriveSharedKey(passphrase, keys.shared.salt, keys.shared.iterations);
    if (!keys.shared.check) {
      try {
        await api(`/api/e2ee/shared-key/${ticketId}`, { json: { check: await makeKeyCheck(key, ticketId) } });
      } catch (error) {
        // someone else set it meanwhile: check against theirs
        if (!(error instanceof ApiError && error.status === 409)) throw error;
        keys = await api<ConversationKeys>(`/api/e2ee/conversation/${ticketId}`);
      }
    }
    if (keys.shared?.check && !(await keyCheckMatches(key, ticketId, keys.shared.check))) return false;
    await saveSharedKey(this.userId, ticketId, key);
    return true;
  }

  private say(root: HTMLElement, text: string, kind: "error" | "status" | "warning", action?: { label: string; run: () => void }) {
    const slot = this.slot(root);
    if (!slot) return;
    slot.querySelector("[data-e2ee-say]")?.remove();
    if (!text) return;
    const p = document.createElement("p");
    p.dataset.e2eeSay = kind;
    p.className = kind === "status" ? "muted" : "form-error";
    p.setAttribute("role", kind === "status" ? "status" : "alert");
    p.textContent = text;
    if (action) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "button";
      b.textContent = action.label;
      b.addEventListener("click", action.run);
      p.append(" ", b);
    }
    slot.appendChild(p);
  }

  private onSubmit = (event: SubmitEvent) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || (form.id !== "reply" && !form.dataset.e2eeNoteForm)) return;
    const root = form.closest<HTMLElement>(".conversation[data-encryption][data-ticket-id]");
    if (!root) return;
    // an encrypted conversation's reply or note never goes out as the plain form
    event.preventDefault();
    event.stopImmediatePropagation();
    if (this.sending) return;
    if (form.id === "reply") void this.send(root, form);
    else void this.sendNote(root, form);
  };

  /** A private note, sealed with the current key version and bound to its message. */
  private async sendNote(root: HTMLElement, form: HTMLFormElement) {
    const ticketId = Number(root.dataset.ticketId);
    const messageId = Number(form.dataset.e2eeNoteForm);
    const box = form.querySelector<HTMLInputElement>('input[name="note"]');
    const text = box?.value.trim() ?? "";
    if (!text) return;
    this.sending = true;
    const tell = (message: string) => {
      form.querySelector("[data-e2ee-say]")?.remove();
      if (!message) return;
      const p = Object.assign(document.createElement("p"), { className: "form-error", textContent: message });
      p.dataset.e2eeSay = "error";
      p.setAttribute("role", "alert");
      form.append(p);
    };
    try {
      const state = await this.state(ticketId, true);
      if (!ready(state)) return tell(this.t("plugin_e2ee.client.missingKey"));
      await this.withCurrentKey(ticketId, state, async (current) => {
        const version = current.keys.version;
        const key = await this.keyOf(current, version);
        if (!key) throw new Error(this.t("plugin_e2ee.client.missingKey"));
        const context = { ticketId, version, clientId: newClientId() };
        const cipher = await encryptMessage(key, context, { text: text.slice(0, 2000) }, { note: messageId });
        await api(`/api/e2ee/note/${ticketId}`, { json: { message_id: messageId, cipher, key_version: version, client_id: context.clientId } });
      });
      if (box) box.value = "";
      tell("");
    } catch (error) {
      tell(this.t("plugin_e2ee.client.failed", { error: error instanceof Error ? error.message : String(error) }));
    } finally {
      this.sending = false;
    }
  }

  /** People whose key differs from the one this user last saw (first sight is remembered, not warned of). */
  private async changedKeys(state: State) {
    const changed: Participant[] = [];
    for (const p of state.keys.participants) {
      if (p.userId === this.userId || !p.fingerprint) continue;
      // the key is not the one the server names: swapped on the way
      if (p.fingerprint !== p.serverFingerprint) {
        changed.push(p);
        continue;
      }
      const seen = await seenFingerprint(this.userId, p.userId);
      if (!seen) await markSeen(this.userId, p.userId, p.fingerprint);
      else if (seen !== p.fingerprint) changed.push(p);
    }
    return changed;
  }

  private async send(root: HTMLElement, form: HTMLFormElement, confirmed = false) {
    const ticketId = Number(root.dataset.ticketId);
    const box = form.querySelector<HTMLTextAreaElement>('textarea[name="message"]');
    const input = form.querySelector<HTMLInputElement>('input[type="file"][name="attachment"]');
    const text = box?.value.trim() ?? "";
    const files = [...(input?.files ?? [])];
    if (!text && !files.length) return;
    this.sending = true;
    try {
      let state = await this.state(ticketId, true);
      this.showComposerState(root, state);
      if (!ready(state)) {
        // spec section 8; the typed text stays where it is
        this.say(root, this.t("plugin_e2ee.client.missingKey"), "error");
        return;
      }
      const changed = await this.changedKeys(state);
      const names = changed.map((p) => p.name).join(", ");
      if (changed.length && !(confirmed && this.acknowledged.get(ticketId) === names)) {
        this.acknowledged.set(ticketId, names);
        this.say(root, this.t("plugin_e2ee.client.keyChanged", { names }), "warning", {
          label: this.t("plugin_e2ee.client.sendAnyway"),
          run: () => {
            void (async () => {
              for (const p of changed) await markSeen(this.userId, p.userId, p.fingerprint!);
              await this.send(root, form, true);
            })();
          },
        });
        return;
      }
      const bad = files.find((f) => !ALLOWED_TYPES.includes(f.type) || f.type === ENCRYPTED_FILE_TYPE || f.size > MAX_FILE_BYTES);
      if (bad) {
        this.say(root, this.t("plugin_e2ee.client.failed", { error: `${bad.name}: ${bad.type || "?"}` }), "error");
        return;
      }
      this.say(root, this.t("plugin_e2ee.client.sending"), "status");
      const replyTo = form.querySelector<HTMLInputElement>('input[name="reply_to"]')?.value;
      const parts: { text: string; file?: File }[] = [];
      if (text) parts.push({ text });
      for (const file of files) parts.push({ text: "", file });
      for (const part of parts) state = await this.withCurrentKey(ticketId, state, (current) => this.sendOne(ticketId, current, part, replyTo));
      if (box) box.value = "";
      if (input) input.value = "";
      this.say(root, "", "status");
    } catch (error) {
      this.say(root, this.t("plugin_e2ee.client.failed", { error: error instanceof Error ? error.message : String(error) }), "error");
    } finally {
      this.sending = false;
    }
  }

  /** Runs `send` with the current key version; a new one came in between (someone was added or removed): fetch, seal again. */
  private async withCurrentKey(ticketId: number, state: State, send: (state: State) => Promise<unknown>): Promise<State> {
    for (let attempt = 0; ; attempt++) {
      try {
        state = await this.ensureCurrentKey(ticketId, state);
        await send(state);
        return state;
      } catch (error) {
        if (attempt < 2 && error instanceof ApiError && error.status === 409) {
          state = await this.state(ticketId, true);
          continue;
        }
        throw error;
      }
    }
  }

  /** The key of the current version; makes the next version first when one is due (or none exists). */
  private async ensureCurrentKey(ticketId: number, state: State): Promise<State> {
    if (state.keys.method === "aes") return state;
    if (!state.keys.rekey && state.keys.version > 0 && (await this.keyOf(state, state.keys.version))) return state;
    if (!state.keys.rekey && state.keys.version > 0) throw new Error(this.t("plugin_e2ee.client.missingKey"));
    const key = await newConversationKey();
    const wrapped = [];
    for (const p of state.keys.participants)
      if (p.publicKey && p.fingerprint) wrapped.push({ userId: p.userId, wrappedKey: await wrapConversationKey(key, p.publicKey), fingerprint: p.fingerprint });
    const v = state.keys.visitor;
    const visitor = v ? { wrappedKey: await wrapConversationKey(key, v.publicKey), fingerprint: v.fingerprint } : null;
    await api(`/api/e2ee/conversation/${ticketId}`, { json: { version: state.keys.version + 1, wrapped, visitor } });
    return this.state(ticketId, true);
  }

  private async sendOne(ticketId: number, state: State, part: { text: string; file?: File }, replyTo?: string) {
    const version = state.keys.version;
    const key = await this.keyOf(state, version);
    if (!key) throw new Error(this.t("plugin_e2ee.client.missingKey"));
    const context = { ticketId, version, clientId: newClientId() };
    const form = new FormData();
    const file = part.file;
    form.set(
      "cipher",
      await encryptMessage(key, context, { text: part.text, ...(file ? { file: { name: file.name, type: file.type, size: file.size } } : {}) }),
    );
    form.set("key_version", String(version));
    form.set("client_id", context.clientId);
    if (replyTo) form.set("reply_to", replyTo);
    if (file) {
      const sealed = await encryptFile(key, context, await file.arrayBuffer());
      form.set("attachment", new File([sealed], ENCRYPTED_FILE_NAME, { type: ENCRYPTED_FILE_TYPE }));
    }
    await api(`/api/e2ee/send/${ticketId}`, { form });
  }
}
