// The encrypted conversation in the browser, on top of the host's conversation page (which marks
// it: `.conversation[data-encryption]`, each encrypted message `[data-e2ee-message]` with its
// envelope, the `[data-composer-slot]` above the reply form `#reply`):
// - opens each message with the conversation key of its version (unwrapped with this browser's
//   private key), refusing a tampered one, an old key version after a newer one, a replayed id:
//   'Message could not be decrypted';
// - seals the reply (text, and each file before upload) with the current key version, making the
//   next version first when the participants changed (wrapped only for those still in);
// - without the key here: the spec's missing-key text, sending blocked, the draft kept;
// - a participant's key changed since last seen: a warning before sending.
import {
  decryptFile,
  decryptMessage,
  encryptFile,
  encryptMessage,
  fingerprintOf,
  safetyNumber,
  newClientId,
  newConversationKey,
  unwrapConversationKey,
  wrapConversationKey,
  type MessageContext,
} from "../crypto";
import { ALLOWED_TYPES, MAX_FILE_BYTES } from "~/file-types";
import { ENCRYPTED_FILE_NAME, ENCRYPTED_FILE_TYPE } from "~/conversation/encrypted";
import { api, ApiError, loadIdentity, markSeen, seenFingerprint, type StoredIdentity } from "./keystore";

type T = (key: string, values?: Record<string, string>) => string;

interface Participant {
  userId: number;
  username: string;
  name: string;
  publicKey: string | null;
  fingerprint: string | null;
  previousFingerprints: string[];
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
}

interface State {
  keys: ConversationKeys;
  identity: StoredIdentity | null;
  unwrapped: Map<number, Promise<CryptoKey | null>>;
}

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
        for (const p of keys.participants) p.fingerprint = p.publicKey ? await fingerprintOf(p.publicKey) : null;
        // a key here that is not the published one (replaced on another browser) opens nothing
        const usable = identity && keys.fingerprint === identity.fingerprint ? identity : null;
        return { keys, identity: usable, unwrapped: new Map() };
      })();
      this.states.set(ticketId, s);
      s.catch(() => this.states.delete(ticketId));
    }
    return s;
  }

  private keyOf(state: State, version: number): Promise<CryptoKey | null> {
    let k = state.unwrapped.get(version);
    if (!k) {
      const wrapped = state.keys.keys.find((w) => w.version === version);
      k =
        wrapped && state.identity && wrapped.fingerprint === state.identity.fingerprint
          ? unwrapConversationKey(wrapped.wrappedKey, state.identity.privateKey).catch(() => null)
          : Promise.resolve(null);
      state.unwrapped.set(version, k);
    }
    return k;
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
    this.showComposerState(root, state);
    void this.drawSafetyNumbers(state);
    let newest = 0;
    const ids = new Set<string>();
    for (const el of items) {
      const version = Number(el.dataset.e2eeVersion);
      const clientId = el.dataset.e2eeClientId ?? "";
      // messages come in id order: one sealed with an older version than an earlier message's is
      // an old key used after a participant left; an id seen before is a replay
      const suspicious = version < newest || ids.has(clientId);
      newest = Math.max(newest, version);
      ids.add(clientId);
      if (el.dataset.e2eeDone === `${version}:${state.identity ? "k" : "-"}`) continue;
      el.dataset.e2eeDone = `${version}:${state.identity ? "k" : "-"}`;
      void this.open(el, state, { ticketId, version, clientId }, suspicious);
    }
  }

  /**
   * The safety numbers as this browser computes them from the keys it encrypts for, beside the
   * server's in the panel: these are the ones to compare out of band, since a server that swapped
   * a key could show matching numbers of its own.
   */
  private async drawSafetyNumbers(state: State) {
    const panel = document.querySelector<HTMLElement>('[data-panel="e2ee"]');
    const mine = state.identity?.fingerprint;
    if (!panel || !mine) return;
    const lines: string[] = [];
    for (const p of state.keys.participants)
      if (p.userId !== this.userId && p.fingerprint)
        lines.push(this.t("plugin_e2ee.client.safety", { name: p.name, number: await safetyNumber(mine, p.fingerprint) }));
    let list = panel.querySelector<HTMLUListElement>("ul[data-e2ee-safety]");
    if (!list) {
      list = document.createElement("ul");
      list.dataset.e2eeSafety = "";
      panel.append(list);
    }
    if (list.dataset.lines === lines.join("\n")) return;
    list.dataset.lines = lines.join("\n");
    list.replaceChildren(
      ...lines.map((line) => {
        const item = document.createElement("li");
        item.textContent = line;
        return item;
      }),
    );
  }

  private output(el: HTMLElement) {
    const fallback = el.querySelector<HTMLElement>("[data-e2ee-text]");
    if (fallback) fallback.hidden = true;
    let out = el.querySelector<HTMLElement>("[data-e2ee-out]");
    if (!out) {
      out = document.createElement("div");
      out.dataset.e2eeOut = "";
      el.appendChild(out);
    }
    out.replaceChildren();
    return out;
  }

  private async open(el: HTMLElement, state: State, context: MessageContext, suspicious: boolean) {
    const out = () => this.output(el);
    const fail = (text: string) => {
      const p = document.createElement("p");
      p.className = "field-error";
      p.dataset.e2eeState = "undecryptable";
      p.textContent = text;
      out().appendChild(p);
    };
    if (!state.identity) {
      const p = document.createElement("p");
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
      payload = await decryptMessage(key, context, el.dataset.e2eeCipher ?? "");
    } catch {
      return fail(this.t("plugin_e2ee.client.undecryptable"));
    }
    const box = out();
    if (payload.text) {
      const p = document.createElement("p");
      p.className = "text-body";
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
    if (state.identity) {
      missing?.remove();
      return;
    }
    if (missing) return;
    const p = document.createElement("p");
    p.className = "form-error";
    p.dataset.e2eeMissing = "";
    p.append(this.t("plugin_e2ee.client.missingKey"), " ");
    const link = document.createElement("a");
    link.href = "/e2ee/keys";
    link.textContent = this.t("plugin_e2ee.client.setup");
    p.appendChild(link);
    slot.appendChild(p);
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
    if (!(form instanceof HTMLFormElement) || form.id !== "reply") return;
    const root = form.closest<HTMLElement>(".conversation[data-encryption][data-ticket-id]");
    if (!root) return;
    // an encrypted conversation's reply never goes out as the plain form
    event.preventDefault();
    event.stopImmediatePropagation();
    if (!this.sending) void this.send(root, form);
  };

  /** People whose key differs from the one this user last saw (first sight is remembered, not warned of). */
  private async changedKeys(state: State) {
    const changed: Participant[] = [];
    for (const p of state.keys.participants) {
      if (p.userId === this.userId || !p.fingerprint) continue;
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
      if (!state.identity) {
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
      for (const part of parts) {
        for (let attempt = 0; ; attempt++) {
          try {
            state = await this.ensureCurrentKey(ticketId, state);
            await this.sendOne(ticketId, state, part, replyTo);
            break;
          } catch (error) {
            // a new key version came in between (someone was added or removed): fetch, seal again
            if (attempt < 2 && error instanceof ApiError && error.status === 409) {
              state = await this.state(ticketId, true);
              continue;
            }
            throw error;
          }
        }
      }
      if (box) box.value = "";
      if (input) input.value = "";
      this.say(root, "", "status");
    } catch (error) {
      this.say(root, this.t("plugin_e2ee.client.failed", { error: error instanceof Error ? error.message : String(error) }), "error");
    } finally {
      this.sending = false;
    }
  }

  /** The key of the current version; makes the next version first when one is due (or none exists). */
  private async ensureCurrentKey(ticketId: number, state: State): Promise<State> {
    if (!state.keys.rekey && state.keys.version > 0 && (await this.keyOf(state, state.keys.version))) return state;
    if (!state.keys.rekey && state.keys.version > 0) throw new Error(this.t("plugin_e2ee.client.missingKey"));
    const key = await newConversationKey();
    const wrapped = [];
    for (const p of state.keys.participants)
      if (p.publicKey && p.fingerprint) wrapped.push({ userId: p.userId, wrappedKey: await wrapConversationKey(key, p.publicKey), fingerprint: p.fingerprint });
    await api(`/api/e2ee/conversation/${ticketId}`, { json: { version: state.keys.version + 1, wrapped } });
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
