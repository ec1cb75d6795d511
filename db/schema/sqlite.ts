// SQLite schema (embedded default). Keep in step with ./pg.ts: tests/unit/schema-drift.test.ts fails when they differ.
import { sqliteTable, integer, text, primaryKey, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";

const bool = (name: string) => integer(name, { mode: "boolean" });
/** Times are unix milliseconds everywhere. */
const time = (name: string) => integer(name);

export const departments = sqliteTable("departments", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
});

export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    username: text("username").notNull(),
    name: text("name").notNull(),
    type: text("type").notNull(), // 'admin' | 'agent'
    passwordHash: text("password_hash").notNull(),
    photo: text("photo"),
    departmentId: integer("department_id").references(() => departments.id, { onDelete: "set null" }),
    permissions: text("permissions").notNull().default("[]"), // JSON list of permission names (spec section 6)
    /** Lower-cased; empty for accounts made without one (the demo seed, the CLI). */
    email: text("email").notNull().default(""),
    rank: integer("rank").notNull().default(9999999),
    /** Set while the account is disabled: no sign-in, no sessions, not offered for assignment. */
    disabledAt: time("disabled_at"),
    language: text("language"),
    totpSecret: text("totp_secret"),
    totpEnabled: bool("totp_enabled").notNull().default(false),
    totpLastStep: integer("totp_last_step").notNull().default(0),
    status: text("status").notNull().default("ONLINE"),
    secondStatus: text("second_status").notNull().default(""),
    statusReason: text("status_reason").notNull().default(""),
    statusTime: time("status_time").notNull().default(0),
    createdAt: time("created_at").notNull(),
  },
  // usernames are unique whatever their case, emails (stored lower-cased) when present
  (t) => [
    uniqueIndex("users_username_idx").on(t.username),
    uniqueIndex("users_username_lower_idx").on(sql`lower(${t.username})`),
    uniqueIndex("users_email_idx")
      .on(t.email)
      .where(sql`${t.email} <> ''`),
  ],
);

export const sessions = sqliteTable(
  "sessions",
  {
    // sha256 of the id in the cookie: a leaked table does not leak usable sessions
    idHash: text("id_hash").primaryKey(),
    refreshHash: text("refresh_hash"),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    mfaPending: bool("mfa_pending").notNull().default(false),
    createdAt: time("created_at").notNull(),
    expiresAt: time("expires_at").notNull(),
    userAgent: text("user_agent").notNull().default(""),
    /** Last request seen: a session idle longer than the workspace's idle timeout ends. */
    lastSeenAt: time("last_seen_at").notNull().default(0),
    /** Sessions made from one sign-in by refreshing share a family; reuse of a spent refresh token ends it. */
    familyId: text("family_id").notNull().default(""),
    /** Wrong two-factor codes on this (pending) session; a few end it. */
    tfaFailures: integer("tfa_failures").notNull().default(0),
    ip: text("ip").notNull().default(""),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_refresh_idx").on(t.refreshHash), index("sessions_family_idx").on(t.familyId)],
);

export const labels = sqliteTable("labels", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  color: text("color").notNull().default("#000000"),
  colorDark: text("color_dark").notNull().default("#000000"),
  level: integer("level").notNull().default(0),
  sla: integer("sla").notNull().default(30),
});

export const tickets = sqliteTable(
  "tickets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ticketNumber: integer("ticket_number").notNull(),
    title: text("title").notNull(),
    channel: text("channel").notNull(),
    /** ticket, chat, call or livechat: derived from the channel on insert (app/channels.ts), indexed for the lists. */
    kind: text("kind").notNull().default("ticket"),
    status: integer("status").notNull().default(0), // 0 open, 1 pending, 2 resolved, 3 closed
    severity: text("severity").notNull().default(""), // H, M, L or ''
    departmentId: integer("department_id").references(() => departments.id, { onDelete: "set null" }),
    campaignId: integer("campaign_id"),
    /** Preferred appointment date, when the customer gave one. */
    appointmentAt: time("appointment_at"),
    contactName: text("contact_name").notNull().default(""),
    contactEmail: text("contact_email").notNull().default(""),
    contactPhone: text("contact_phone").notNull().default(""),
    emotion: text("emotion").notNull().default(""),
    lastMessage: text("last_message").notNull().default(""),
    responded: bool("responded").notNull().default(false),
    /** Live chats: the visitor session they belong to (the agent desk groups by it). */
    sessionId: integer("session_id"),
    /** Live chats: the visitor's rating (1-5 stars) and reason, once given. */
    rating: integer("rating"),
    ratingReason: text("rating_reason").notNull().default(""),
    /** Channel tickets: the address the customer wrote to (spec receiver_email) and the account that answers. */
    receiverEmail: text("receiver_email").notNull().default(""),
    channelAccountId: integer("channel_account_id"),
    /** Messaging channels: the customer's id at the provider (spec userId: a WhatsApp number, a LINE user id, a Telegram chat id). */
    customerId: text("customer_id").notNull().default(""),
    /** Messaging channels: what the conversation hangs on besides the customer (spec ref: a page post's comment thread, a tweet). */
    ref: text("ref").notNull().default(""),
    /** End-to-end encryption (spec section 3 `encryption`, plugins/e2ee): on, messages are ciphertext only the participants' browsers read. */
    encryption: bool("encryption").notNull().default(false),
    /** Spec `encryption_method`: 'rsa' (the conversation key wrapped per participant with RSA-OAEP) or 'aes'; '' while off. */
    encryptionMethod: text("encryption_method").notNull().default(""),
    /** The conversation key's current version: a ciphertext of another version is refused. */
    encryptionVersion: integer("encryption_version").notNull().default(0),
    /** Participants changed (or a key did): the next sender's browser makes a new key version before sending. */
    encryptionRekey: bool("encryption_rekey").notNull().default(false),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("tickets_number_idx").on(t.ticketNumber),
    // the list panel: one kind, one status (or all), newest activity first; also serves its counts.
    // id is the list's tie-break (ORDER BY updated_at DESC, id DESC): with it the page is a plain
    // walk of the index, and the page's ids and the pager's count never touch the table (PostgreSQL;
    // SQLite keeps the rowid in every index anyway)
    index("tickets_kind_status_updated_id_idx").on(t.kind, t.status, t.updatedAt, t.id),
    index("tickets_kind_updated_id_idx").on(t.kind, t.updatedAt, t.id),
    index("tickets_channel_idx").on(t.channel),
    index("tickets_department_idx").on(t.departmentId),
    index("tickets_created_idx").on(t.createdAt),
    index("tickets_session_idx").on(t.sessionId),
    // a sender's tickets (their priority, see senderPriority)
    index("tickets_contact_email_idx").on(t.contactEmail, t.updatedAt),
  ],
);

export const ticketLabels = sqliteTable(
  "ticket_labels",
  {
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    labelId: integer("label_id").notNull(), // no FK: a deleted label shows as "Removed" (spec section 3)
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.labelId] }), index("ticket_labels_label_idx").on(t.labelId)],
);

export const participants = sqliteTable(
  "participants",
  {
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    assignee: bool("assignee").notNull().default(false),
    lastReadAt: time("last_read_at").notNull().default(0),
    /** Activity by someone else since this participant last read it (kept by the write path). */
    unread: bool("unread").notNull().default(false),
    /** The conversation's kind, copied so unread counts per kind come from one index. */
    kind: text("kind").notNull().default("ticket"),
    addedAt: time("added_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.ticketId, t.userId] }),
    index("participants_user_idx").on(t.userId),
    index("participants_user_unread_kind_idx").on(t.userId, t.unread, t.kind),
  ],
);

/**
 * Unread conversations per user and kind (participants with unread set), kept by triggers on
 * participants (migration 0009_unread_counts), so the counts on every page are a key lookup.
 */
export const unreadCounts = sqliteTable(
  "unread_counts",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    unread: integer("unread").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.kind] })],
);

export const messages = sqliteTable(
  "messages",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    type: text("type").notNull().default("text"),
    body: text("body").notNull(),
    senderUserId: integer("sender_user_id").references(() => users.id, { onDelete: "set null" }),
    senderName: text("sender_name").notNull().default(""),
    replyToId: integer("reply_to_id"),
    pinned: bool("pinned").notNull().default(false),
    /** Attachment in file storage (type image/..., or another mime type). */
    fileKey: text("file_key"),
    fileName: text("file_name"),
    fileType: text("file_type"),
    fileSize: integer("file_size"),
    /** Agent messages on a channel: queued | sending | sent | delivered | read | failed ('' elsewhere). */
    deliveryState: text("delivery_state").notNull().default(""),
    /** The provider's reason when failed, or why it waits (no mail server configured). */
    deliveryError: text("delivery_error"),
    /** The history a customer's message quotes (a mail's earlier conversation), kept apart so the view folds it and search skips it. */
    quoted: text("quoted"),
    /**
     * A customer's message whose file the provider did not hand over yet: "pending" while the download
     * is tried again (the file is then set on this message), "failed" once given up; null otherwise.
     */
    fileState: text("file_state"),
    /** Encrypted messages (type 'encrypted'): the browser's envelope (nonce and AES-GCM ciphertext, base64 JSON); body stays ''. */
    cipher: text("cipher"),
    /** The conversation key version the envelope was sealed with. */
    keyVersion: integer("key_version"),
    /** The sender's browser's id for it (bound into the ciphertext): unique per conversation, so a replay is refused. */
    clientId: text("client_id"),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("messages_ticket_created_idx").on(t.ticketId, t.createdAt), uniqueIndex("messages_ticket_client_idx").on(t.ticketId, t.clientId)],
);

/** Private notes agents attach to a message. */
export const messageNotes = sqliteTable(
  "message_notes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    messageId: integer("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    body: text("body").notNull(),
    /** A note in an end-to-end encrypted conversation: the browser's envelope (body stays ''), as on messages. */
    cipher: text("cipher"),
    keyVersion: integer("key_version"),
    /** The author's browser's id for it (bound into the ciphertext): unique per message, so a replay is refused. */
    clientId: text("client_id"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [index("message_notes_message_idx").on(t.messageId), uniqueIndex("message_notes_message_client_idx").on(t.messageId, t.clientId)],
);

export const messageReactions = sqliteTable(
  "message_reactions",
  {
    messageId: integer("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    reaction: text("reaction").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.userId, t.reaction] })],
);

/** Saved ticket-list filters, per user. */
export const filterPresets = sqliteTable(
  "filter_presets",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    query: text("query").notNull(), // the list's query string
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("filter_presets_user_idx").on(t.userId)],
);

/** Workspace settings as key/value (plan, account_type, admin name, ...). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** Admin overrides of an edition file: host patterns. */
export const editions = sqliteTable("editions", {
  id: text("id").primaryKey(),
  hosts: text("hosts").notNull(), // JSON list of host patterns
  updatedAt: time("updated_at").notNull(),
});

/** Admin overrides of which plugins an edition enables. */
export const pluginToggles = sqliteTable(
  "plugin_toggles",
  {
    editionId: text("edition_id").notNull(),
    pluginId: text("plugin_id").notNull(),
    enabled: bool("enabled").notNull(),
  },
  (t) => [primaryKey({ columns: [t.editionId, t.pluginId] })],
);

/** Tokens behind public pages: live chat, survey, new ticket, public dashboards. */
export const publicTokens = sqliteTable(
  "public_tokens",
  {
    kind: text("kind").notNull(),
    token: text("token").notNull(),
    createdAt: time("created_at").notNull(),
    revokedAt: time("revoked_at"),
  },
  (t) => [primaryKey({ columns: [t.kind, t.token] })],
);

/** A live chat visitor across chats: the agent desk groups live chats by session; agents merge sessions. */
export const livechatSessions = sqliteTable(
  "livechat_sessions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    email: text("email").notNull().default(""),
    /** The visitor's own random key (their browser's cookie): chats group by it, never by a typed email. */
    visitorKey: text("visitor_key").notNull().default(""),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("livechat_sessions_email_idx").on(t.email), index("livechat_sessions_visitor_idx").on(t.visitorKey)],
);

/**
 * One visitor's run through a live chat link (/livechat/{token}): new, queued (waiting for an
 * agent), active, ended, converted (to a ticket) or sent (a message left while offline).
 */
export const livechatVisits = sqliteTable(
  "livechat_visits",
  {
    token: text("token").primaryKey(),
    widgetKey: text("widget_key").notNull(),
    ticketId: integer("ticket_id").references(() => tickets.id, { onDelete: "cascade" }),
    state: text("state").notNull().default("new"),
    queuedAt: time("queued_at"),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("livechat_visits_state_queued_idx").on(t.state, t.queuedAt), uniqueIndex("livechat_visits_ticket_idx").on(t.ticketId)],
);

// ---- payment plugin: payments and invoices (plans and seats live in settings) ----

/** One attempt to pay for a plan; status PENDING -> SUCCESS or FAILED exactly once. Money in minor units. */
export const payments = sqliteTable(
  "payments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ref: text("ref").notNull(), // payment_ref: random, shown to the payer and the provider
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    plan: integer("plan").notNull(),
    quantity: integer("quantity").notNull(),
    currency: text("currency").notNull(),
    unitMinor: integer("unit_minor").notNull(),
    amountMinor: integer("amount_minor").notNull(),
    taxBp: integer("tax_bp").notNull(),
    taxMinor: integer("tax_minor").notNull(),
    totalMinor: integer("total_minor").notNull(),
    status: text("status").notNull().default("PENDING"), // PENDING | SUCCESS | FAILED
    description: text("description").notNull().default(""), // payment_desc
    provider: text("provider").notNull(),
    providerRef: text("provider_ref"),
    checkoutUrl: text("checkout_url"),
    /** The form's one-time key: a double submit finds the first payment instead of making a second. */
    idempotencyKey: text("idempotency_key").notNull(),
    createdAt: time("created_at").notNull(),
    settledAt: time("settled_at"),
  },
  (t) => [
    uniqueIndex("payments_ref_idx").on(t.ref),
    uniqueIndex("payments_idempotency_idx").on(t.userId, t.idempotencyKey),
    index("payments_provider_ref_idx").on(t.provider, t.providerRef),
    index("payments_created_idx").on(t.createdAt),
  ],
);

/** Issued once per successful payment, in the transaction that activates the plan. */
export const invoices = sqliteTable(
  "invoices",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    number: text("number").notNull(),
    paymentId: integer("payment_id")
      .notNull()
      .references(() => payments.id, { onDelete: "cascade" }),
    billingName: text("billing_name").notNull(),
    billingEmail: text("billing_email").notNull(),
    periodStart: time("period_start").notNull(),
    periodEnd: time("period_end").notNull(),
    issuedAt: time("issued_at").notNull(),
  },
  (t) => [uniqueIndex("invoices_number_idx").on(t.number), uniqueIndex("invoices_payment_idx").on(t.paymentId)],
);

/**
 * Admin-defined public surveys (/survey/{token}). `token` is the survey's current public token
 * (public_tokens kind "survey"); a new link replaces it while the id, and the answers, stay.
 */
export const surveys = sqliteTable(
  "surveys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    token: text("token").notNull(),
    title: text("title").notNull(),
    fields: text("fields").notNull().default("[]"), // JSON [{id, label, type, required, options[]}]
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [uniqueIndex("surveys_token_idx").on(t.token)],
);

/** One visitor's answers to a survey: JSON of field id -> text. */
export const surveySubmissions = sqliteTable(
  "survey_submissions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    surveyId: integer("survey_id")
      .notNull()
      .references(() => surveys.id, { onDelete: "cascade" }),
    data: text("data").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("survey_submissions_survey_created_idx").on(t.surveyId, t.createdAt)],
);

/** What a user should hear about (spec 'Notification'), e.g. being assigned; seen once read. */
export const notifications = sqliteTable(
  "notifications",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** What happened ("assigned", "added"): the text is localised when shown. */
    type: text("type").notNull(),
    category: text("category").notNull().default("system"), // sla, system or trade
    channel: text("channel").notNull().default("ticket"), // ticket, livechat or chat: where it leads
    ticketNumber: integer("ticket_number"),
    title: text("title").notNull().default(""),
    body: text("body").notNull().default(""),
    /** The bell's count: cleared when the panel closes (spec section 4). */
    seen: bool("seen").notNull().default(false),
    /** Read: its tab's unread count no longer counts it (opening the tab, /api/notification/read). */
    read: bool("read").notNull().default(false),
    /** An image to show beside it (spec 'img': a user's photo or a file), or "". */
    img: text("img").notNull().default(""),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("notifications_user_created_idx").on(t.userId, t.createdAt), index("notifications_user_category_idx").on(t.userId, t.category, t.id)],
);

/**
 * Browser push subscriptions (Web Push: endpoint and keys), or a bare device token sent in the
 * spec's /api/fcm/token shape. A subscription the push service answers 404/410 for is removed.
 */
export const pushSubscriptions = sqliteTable(
  "push_subscriptions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    endpoint: text("endpoint").notNull(),
    p256dh: text("p256dh").notNull().default(""),
    auth: text("auth").notNull().default(""),
    /** "webpush" (endpoint and keys) or the spec's token type (a token only: kept, not sent to). */
    type: text("type").notNull().default("webpush"),
    domain: text("domain").notNull().default(""),
    createdAt: time("created_at").notNull(),
  },
  (t) => [uniqueIndex("push_subscriptions_endpoint_idx").on(t.endpoint), index("push_subscriptions_user_idx").on(t.userId)],
);

/** A user's notification preferences: push per category, quiet hours, new-ticket notifications and their filters. */
export const notificationPrefs = sqliteTable("notification_prefs", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  pushSla: bool("push_sla").notNull().default(true),
  pushSystem: bool("push_system").notNull().default(true),
  pushTrade: bool("push_trade").notNull().default(true),
  /** Quiet hours, minutes after midnight in the workspace's time zone; both null: none. */
  quietStart: integer("quiet_start"),
  quietEnd: integer("quiet_end"),
  /** Notify of new tickets of the user's department that pass these filters (spec section 4). */
  newTickets: bool("new_tickets").notNull().default(false),
  newTicketChannel: text("new_ticket_channel").notNull().default(""),
  newTicketDepartment: integer("new_ticket_department"),
  newTicketCampaign: integer("new_ticket_campaign"),
  newTicketPriority: text("new_ticket_priority").notNull().default(""),
});

/**
 * Reports: one row per conversation with what the dashboards aggregate, kept in step with
 * tickets by refreshFacts() (plugins/reports/facts.server.ts). Narrow rows and a covering index
 * on the creation time let a 90-day dashboard over a million tickets read the index alone.
 */
export const reportFacts = sqliteTable(
  "report_facts",
  {
    ticketId: integer("ticket_id")
      .primaryKey()
      .references(() => tickets.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    channel: text("channel").notNull(),
    status: integer("status").notNull(),
    createdAt: time("created_at").notNull(),
    /** tickets.updated_at when this row was computed: the refresh watermark. */
    updatedAt: time("updated_at").notNull(),
    /** First message from staff, if any. */
    firstResponseAt: time("first_response_at"),
    /** Last activity once resolved or closed (status 2 or 3). */
    resolvedAt: time("resolved_at"),
    /** Smallest SLA (minutes) of the ticket's labels; null without labels. */
    slaMinutes: integer("sla_minutes"),
    /** Customer rating 1-5 (live chat), null when not rated. */
    rating: integer("rating"),
  },
  (t) => [
    index("report_facts_range_idx").on(t.createdAt, t.kind, t.channel, t.status, t.slaMinutes, t.firstResponseAt, t.resolvedAt, t.rating),
    index("report_facts_kind_updated_idx").on(t.kind, t.updatedAt, t.ticketId),
    index("report_facts_kind_status_created_idx").on(t.kind, t.status, t.createdAt),
  ],
);

/**
 * Reports: report_facts summed per UTC day (per 15 minutes for "vol"), one dimension at a time
 * (dim: vol, cs = channel|status, fr / res = time bucket, sla, rating). Kept by refreshFacts in
 * the same transaction as the facts; dashboards sum whole days from here and only the partial
 * days at the ends of a range from report_facts.
 */
export const reportRollup = sqliteTable(
  "report_rollup",
  {
    dim: text("dim").notNull(),
    kind: text("kind").notNull(),
    at: time("at").notNull(),
    key: text("key").notNull(),
    n: integer("n").notNull(),
    sumMs: time("sum_ms").notNull(),
    nMs: integer("n_ms").notNull(),
  },
  (t) => [primaryKey({ columns: [t.dim, t.kind, t.at, t.key] })],
);

// ---- accounts and security (app/accounts/) ----

/** Refresh tokens already exchanged: presenting one again means it was stolen, and its family ends. */
export const spentRefreshTokens = sqliteTable(
  "spent_refresh_tokens",
  {
    hash: text("hash").primaryKey(),
    familyId: text("family_id").notNull(),
    spentAt: time("spent_at").notNull(),
  },
  (t) => [index("spent_refresh_tokens_spent_idx").on(t.spentAt)],
);

/** Failed sign-in counters per account and per network, counted atomically before the password is checked. */
export const authThrottle = sqliteTable("auth_throttle", {
  key: text("key").primaryKey(),
  failures: integer("failures").notNull().default(0),
  windowStart: time("window_start").notNull(),
});

/** Single-use links (invite, password reset, first-run setup): only the hash is stored. */
export const oneTimeTokens = sqliteTable(
  "one_time_tokens",
  {
    hash: text("hash").primaryKey(),
    purpose: text("purpose").notNull(), // invite | password_reset | setup
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    email: text("email").notNull().default(""),
    createdBy: integer("created_by"),
    createdAt: time("created_at").notNull(),
    expiresAt: time("expires_at").notNull(),
    usedAt: time("used_at"),
  },
  (t) => [index("one_time_tokens_user_idx").on(t.userId, t.purpose)],
);

/** Who did what, append-only (triggers refuse updates and deletes); read on /settings/audit. */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: time("at").notNull(),
    actorId: integer("actor_id"),
    actorName: text("actor_name").notNull().default(""),
    action: text("action").notNull(), // e.g. signin.ok, signin.failed, user.created, plugin.toggled, export.csv
    targetType: text("target_type").notNull().default(""),
    targetId: text("target_id").notNull().default(""),
    detail: text("detail").notNull().default("{}"), // JSON
    ip: text("ip").notNull().default(""),
  },
  (t) => [index("audit_log_at_idx").on(t.at), index("audit_log_action_at_idx").on(t.action, t.at), index("audit_log_actor_at_idx").on(t.actorId, t.at)],
);

/** System mail (invites, password resets) waiting for, or done with, the mail server. */
export const mailOutbox = sqliteTable(
  "mail_outbox",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Makes queueing idempotent: the same key is queued once. */
    dedupeKey: text("dedupe_key").notNull(),
    to: text("to_address").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    status: text("status").notNull().default("queued"), // queued | sent | failed
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: time("next_attempt_at").notNull(),
    lastError: text("last_error"),
    createdAt: time("created_at").notNull(),
    sentAt: time("sent_at"),
  },
  (t) => [uniqueIndex("mail_outbox_dedupe_idx").on(t.dedupeKey), index("mail_outbox_due_idx").on(t.status, t.nextAttemptAt)],
);

/** OpenID Connect providers an admin added (Microsoft, Google, any issuer). */
export const oidcProviders = sqliteTable("oidc_providers", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  issuer: text("issuer").notNull(),
  clientId: text("client_id").notNull(),
  clientSecret: text("client_secret").notNull(),
  scopes: text("scopes").notNull().default("openid email profile"),
  enabled: bool("enabled").notNull().default(true),
  createdAt: time("created_at").notNull(),
});

/** A user's account at an OpenID provider (issuer subject), linked on first sign-in by verified email. */
export const userIdentities = sqliteTable(
  "user_identities",
  {
    providerId: integer("provider_id")
      .notNull()
      .references(() => oidcProviders.id, { onDelete: "cascade" }),
    subject: text("subject").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: time("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.providerId, t.subject] }), index("user_identities_user_idx").on(t.userId)],
);

/** Second statuses an admin adds beside the built-in ones (spec /api/customstatus/get). */
export const customStatuses = sqliteTable("custom_statuses", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  needsReason: bool("needs_reason").notNull().default(false),
  createdAt: time("created_at").notNull(),
});

// ---------- channels (plugins/channels, plugins/email) and the job queue (app/jobs) ----------

/** A channel account an admin added: an email mailbox now, later a WhatsApp number, a LINE bot... */
export const channelAccounts = sqliteTable(
  "channel_accounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** A channel of spec section 1 (EMAIL, GRAPH_EMAIL, ...). */
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    /** What customers write to: the mailbox address (lower-cased), a phone number, a page id. */
    address: text("address").notNull(),
    /** New conversations of this account land in this department. */
    departmentId: integer("department_id").references(() => departments.id, { onDelete: "set null" }),
    /** JSON of the settings that are not secret (hosts, ports, user names). */
    config: text("config").notNull().default("{}"),
    /** JSON of passwords and tokens, sealed with app/secrets.server.ts; never sent to a browser. */
    secrets: text("secrets").notNull().default(""),
    enabled: bool("enabled").notNull().default(true),
    /** untested | ok | failing: the last test or connection, with its error. */
    state: text("state").notNull().default("untested"),
    lastError: text("last_error"),
    checkedAt: time("checked_at"),
    /** The provider said "too many" (429 and its own codes): no send of this account goes out before this. */
    pausedUntil: time("paused_until"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [uniqueIndex("channel_accounts_kind_address_idx").on(t.kind, t.address)],
);

/**
 * Every event a provider hands us (a mail, a webhook call), stored and committed before the
 * provider is acknowledged; the unique key makes a redelivery a no-op.
 */
export const inboundEvents = sqliteTable(
  "inbound_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id").references(() => channelAccounts.id, { onDelete: "set null" }),
    /** Whose key space eventKey is in: "email" (Message-ID or a hash of the bytes), "whatsapp", ... */
    provider: text("provider").notNull(),
    eventKey: text("event_key").notNull(),
    /** How it came: smtp, imap, graph, webhook. */
    source: text("source").notNull().default(""),
    /** The raw bytes in file storage (kept for reprocessing and quarantine review). */
    rawKey: text("raw_key"),
    /** A webhook event's own JSON (small: kept in the row, no file), one entry of a provider's batch. */
    payload: text("payload"),
    size: integer("size").notNull().default(0),
    /** JSON of what the transport knew: the SMTP client's address and HELO, MAIL FROM, the RCPT TO addresses. */
    meta: text("meta").notNull().default("{}"),
    /** received | processed | quarantined | failed */
    state: text("state").notNull().default("received"),
    ticketId: integer("ticket_id"),
    messageId: integer("message_id"),
    error: text("error"),
    receivedAt: time("received_at").notNull(),
    processedAt: time("processed_at"),
  },
  (t) => [uniqueIndex("inbound_events_key_idx").on(t.provider, t.eventKey), index("inbound_events_state_idx").on(t.state, t.receivedAt)],
);

/** Where a channel account's polling stands (IMAP UIDVALIDITY and last UID, Graph's delta link). */
export const channelCursors = sqliteTable(
  "channel_cursors",
  {
    accountId: integer("account_id")
      .notNull()
      .references(() => channelAccounts.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    value: text("value").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] })],
);

/** The durable job queue (app/jobs): channel sends, inbound processing; claimed with a lease, retried with backoff. */
export const jobs = sqliteTable(
  "jobs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    /** Enqueueing the same key again does nothing. */
    key: text("key").notNull(),
    payload: text("payload").notNull().default("{}"),
    /** queued | running (leased until runAt) | done | failed */
    state: text("state").notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    runAt: time("run_at").notNull(),
    lastError: text("last_error"),
    createdAt: time("created_at").notNull(),
    finishedAt: time("finished_at"),
    /**
     * Jobs of one lane (a customer on a channel: their inbound messages, a conversation's sends) run
     * one at a time, in the order they were queued; other lanes run beside them. Null: no lane.
     */
    lane: text("lane"),
  },
  (t) => [
    uniqueIndex("jobs_key_idx").on(t.key),
    index("jobs_due_idx").on(t.state, t.runAt),
    index("jobs_lane_idx").on(t.lane, t.state),
    // the database itself keeps a lane to one running job, whatever races the claimers run
    uniqueIndex("jobs_lane_running_idx")
      .on(t.lane)
      .where(sql`${t.state} = 'running'`),
  ],
);

/**
 * A customer's current conversation on a messaging account (and thread: a post's comments): the
 * one their next message joins. The key makes two messages racing in from a new customer one conversation.
 */
export const channelThreads = sqliteTable(
  "channel_threads",
  {
    accountId: integer("account_id").notNull(),
    customerId: text("customer_id").notNull(),
    ref: text("ref").notNull().default(""),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.customerId, t.ref] })],
);

/**
 * The provider's id of each message on a messaging channel (plugins/channels/messaging.server.ts):
 * a receipt finds its message by it, and the unique key makes a message the provider sends twice one.
 */
export const channelMessages = sqliteTable(
  "channel_messages",
  {
    messageId: integer("message_id")
      .primaryKey()
      .references(() => messages.id, { onDelete: "cascade" }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    accountId: integer("account_id").notNull(),
    /** in | out */
    direction: text("direction").notNull(),
    providerMessageId: text("provider_message_id").notNull(),
  },
  (t) => [uniqueIndex("channel_messages_provider_idx").on(t.accountId, t.providerMessageId)],
);

/**
 * The pieces of one long text reply that a provider takes as several messages (Messenger's 2,000
 * characters, Telegram's 4,096): each piece is recorded as soon as it is sent, so a retry after a
 * rate limit or a crash halfway sends only the pieces that did not go.
 */
export const channelMessagePieces = sqliteTable(
  "channel_message_pieces",
  {
    messageId: integer("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    piece: integer("piece").notNull(),
    providerMessageId: text("provider_message_id").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.piece] })],
);

/** A reply sent as an approved WhatsApp template (plugins/whatsapp): the send job sends the template, not the text. */
export const whatsappTemplateMessages = sqliteTable("whatsapp_template_messages", {
  messageId: integer("message_id")
    .primaryKey()
    .references(() => messages.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  language: text("language").notNull(),
  /** The body's values in order ({{1}}, {{2}}, ...), as a JSON array of strings. */
  params: text("params").notNull(),
});

/** The email facts of a message (plugins/email): what threading looks up and what a reply answers. */
export const emailMessages = sqliteTable(
  "email_messages",
  {
    messageId: integer("message_id")
      .primaryKey()
      .references(() => messages.id, { onDelete: "cascade" }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    accountId: integer("account_id"),
    /** in | out */
    direction: text("direction").notNull(),
    /** Normalised (plugins/email/threading.ts normalizeMessageId). */
    internetMessageId: text("internet_message_id").notNull(),
    inReplyTo: text("in_reply_to"),
    /** Space-separated, oldest first. */
    references: text("references").notNull().default(""),
    threadIndex: text("thread_index"),
    threadIndexRoot: text("thread_index_root"),
    subject: text("subject").notNull().default(""),
    fromAddress: text("from_address").notNull().default(""),
    fromName: text("from_name").notNull().default(""),
    /** JSON lists of {address, name}. */
    to: text("to_addresses").notNull().default("[]"),
    cc: text("cc_addresses").notNull().default("[]"),
    recipientCount: integer("recipient_count").notNull().default(0),
    bulk: bool("bulk").notNull().default(false),
    /** An auto-reply, bounce or list mail: never answered. */
    auto: bool("auto").notNull().default(false),
    /** JSON of the SPF, DKIM and DMARC verdicts (mailauth) and whether the sender is authenticated. */
    auth: text("auth").notNull().default(""),
    createdAt: time("created_at").notNull(),
  },
  (t) => [
    index("email_messages_internet_id_idx").on(t.internetMessageId),
    index("email_messages_thread_root_idx").on(t.threadIndexRoot),
    index("email_messages_ticket_idx").on(t.ticketId),
  ],
);

/** A ticket's email thread: the token of its reply address (reply+<token>@) and its mailbox. */
export const emailThreads = sqliteTable(
  "email_threads",
  {
    ticketId: integer("ticket_id")
      .primaryKey()
      .references(() => tickets.id, { onDelete: "cascade" }),
    accountId: integer("account_id"),
    replyToken: text("reply_token").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [uniqueIndex("email_threads_token_idx").on(t.replyToken)],
);

/** People on the customer's side of an email ticket besides its contact (CC'd people who replied). */
export const emailParticipants = sqliteTable(
  "email_participants",
  {
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    address: text("address").notNull(),
    name: text("name").notNull().default(""),
    addedAt: time("added_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.address] }), index("email_participants_address_idx").on(t.address)],
);

/**
 * Conversation events a client that was away replays by id (GET /event/{eventId}, spec section 3
 * "Event"): what leaves no row behind (a deleted message) or moves rows (merged live chat sessions).
 * One row per conversation touched, so the replay is access-checked through its ticket.
 */
export const conversationEvents = sqliteTable(
  "conversation_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** delete_message | merge_session */
    action: text("action").notNull(),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    /** The deleted message's id; the session merged away. */
    refId: integer("ref_id"),
    sessionId: integer("session_id"),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("conversation_events_ticket_idx").on(t.ticketId)],
);

/**
 * Link previews of URLs in messages (app/conversation/link-preview.server.ts), fetched by a job and
 * kept for a day: a table, not a per-process cache, so every node renders the same preview and a
 * restart does not fetch them all again. state "none": fetched (or refused) and nothing to show.
 */
export const linkPreviews = sqliteTable(
  "link_previews",
  {
    /** sha256 of the URL (URLs can be longer than an index key may be). */
    urlHash: text("url_hash").primaryKey(),
    url: text("url").notNull(),
    state: text("state").notNull(),
    title: text("title").notNull().default(""),
    description: text("description").notNull().default(""),
    image: text("image").notNull().default(""),
    fetchedAt: time("fetched_at").notNull(),
  },
  (t) => [index("link_previews_fetched_idx").on(t.fetchedAt)],
);

/**
 * Client writes already done (app/request-keys.server.ts): the key a client gave a write (the reply
 * form's hidden key, the JSON API's Idempotency-Key header), stored by the write's own transaction
 * with what it made, so a retry answers the first result. Kept a day.
 */
export const requestKeys = sqliteTable(
  "request_keys",
  {
    /** Whose key: "user:3", "visitor:<visit token hash>". */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** The write it named (reply, status, ...): the same key for another write is refused. */
    action: text("action").notNull(),
    result: text("result").notNull().default("null"),
    createdAt: time("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index("request_keys_created_idx").on(t.createdAt)],
);

// ---------- the WAUCHAT chat bot (plugins/wauchat) ----------

/** The bot's texts an admin changed (welcome, greeting.en, productMenu.ms, ...) and its handover words; the rest are defaults. */
export const wauchatSettings = sqliteTable("wauchat_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** The messaging accounts the bot answers on. */
export const wauchatAccounts = sqliteTable("wauchat_accounts", {
  accountId: integer("account_id")
    .primaryKey()
    .references(() => channelAccounts.id, { onDelete: "cascade" }),
});

/** Keyword rules: any of the keywords (comma-separated) in a customer's message gets the answer, and maybe a human. */
export const wauchatRules = sqliteTable("wauchat_rules", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  keywords: text("keywords").notNull(),
  answer: text("answer").notNull(),
  handover: bool("handover").notNull().default(false),
  createdAt: time("created_at").notNull(),
});

/**
 * The bot's hold on one conversation: where the menu stands, the language chosen, wrong answers so
 * far, and the last customer message it answered (a job run twice answers once).
 */
export const wauchatConversations = sqliteTable("wauchat_conversations", {
  ticketId: integer("ticket_id")
    .primaryKey()
    .references(() => tickets.id, { onDelete: "cascade" }),
  /** The messaging account; null for a WAUCHAT conversation through GET /api/wauchat. */
  accountId: integer("account_id"),
  /** start | language | product | human */
  stage: text("stage").notNull().default("start"),
  language: text("language").notNull().default(""),
  product: text("product").notNull().default(""),
  misses: integer("misses").notNull().default(0),
  lastMessageId: integer("last_message_id").notNull().default(0),
  /** Why the bot let go: handover, words, rule, misses, agent. */
  endedBy: text("ended_by").notNull().default(""),
  updatedAt: time("updated_at").notNull(),
});

/** A GET /api/wauchat caller's current conversation ("{user id}:{type}"): two first calls at once make one. */
export const wauchatCallers = sqliteTable("wauchat_callers", {
  caller: text("caller").primaryKey(),
  ticketId: integer("ticket_id")
    .notNull()
    .references(() => tickets.id, { onDelete: "cascade" }),
});

// ---------- cases (plugins/case) ----------

/** Kinds of case an admin defines (the ticket field case_type of spec section 3); a retired one stays on its cases. */
export const caseTypes = sqliteTable(
  "case_types",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    active: bool("active").notNull().default(true),
    /** The name as uniqueness compares it: Unicode NFKC, lower case in every script (plugins/case). */
    nameKey: text("name_key").notNull().default(""),
  },
  (t) => [uniqueIndex("case_types_name_key_idx").on(t.nameKey)],
);

/** A case: tickets about one problem across channels and time, with an owner and a due date. */
export const cases = sqliteTable(
  "cases",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** Shown and linked as /case/{number}: the next after the highest, from 1001. */
    number: integer("number").notNull(),
    title: text("title").notNull(),
    caseTypeId: integer("case_type_id").references(() => caseTypes.id, { onDelete: "set null" }),
    /** open | in_progress | resolved | closed */
    status: text("status").notNull().default("open"),
    ownerUserId: integer("owner_user_id").references(() => users.id, { onDelete: "set null" }),
    /** A day (YYYY-MM-DD) in the workspace's time zone, or null. */
    dueDate: text("due_date"),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [uniqueIndex("cases_number_idx").on(t.number), index("cases_status_idx").on(t.status, t.updatedAt)],
);

/** A ticket belongs to at most one case (its primary key). */
export const caseTickets = sqliteTable(
  "case_tickets",
  {
    ticketId: integer("ticket_id")
      .primaryKey()
      .references(() => tickets.id, { onDelete: "cascade" }),
    caseId: integer("case_id")
      .notNull()
      .references(() => cases.id, { onDelete: "cascade" }),
    addedAt: time("added_at").notNull(),
  },
  (t) => [index("case_tickets_case_idx").on(t.caseId)],
);

/** Agents' notes on a case. */
export const caseNotes = sqliteTable(
  "case_notes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    caseId: integer("case_id")
      .notNull()
      .references(() => cases.id, { onDelete: "cascade" }),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    body: text("body").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("case_notes_case_idx").on(t.caseId, t.createdAt)],
);

/** The case's own history: created, status changed, ticket attached or detached, owner or due date changed. */
export const caseEvents = sqliteTable(
  "case_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    caseId: integer("case_id")
      .notNull()
      .references(() => cases.id, { onDelete: "cascade" }),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    /** created | status | attached | detached | owner | due | title | type */
    action: text("action").notNull(),
    /** What it became: the status, the ticket number, the owner's name, the day. */
    detail: text("detail").notNull().default(""),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("case_events_case_idx").on(t.caseId, t.createdAt)],
);

// ---------- the product catalogue (plugins/product) ----------

/**
 * An image kept for a refused product form (plugins/product/products.server.ts) until the form is
 * sent again; a periodic job removes those of forms never sent again (and their files).
 */
export const productPendingImages = sqliteTable(
  "product_pending_images",
  {
    fileKey: text("file_key").primaryKey(),
    userId: integer("user_id"),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("product_pending_images_created_idx").on(t.createdAt)],
);

/** A product agents can find and link to tickets; price in minor units of its currency (ISO 4217). */
export const products = sqliteTable(
  "products",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    /** Unique whatever its case (the index on lower(sku)); kept as typed. */
    sku: text("sku").notNull(),
    category: text("category").notNull().default(""),
    priceMinor: integer("price_minor"),
    currency: text("currency").notNull(),
    description: text("description").notNull().default(""),
    /** The image's key in the host's file storage, or null. */
    imageKey: text("image_key"),
    active: bool("active").notNull().default(true),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("products_sku_lower_idx").on(sql`lower(${t.sku})`),
    index("products_category_idx").on(t.category, t.name),
    index("products_name_idx").on(t.name),
    index("products_image_idx").on(t.imageKey),
  ],
);

/** A product linked to a ticket (by whom, when). */
export const productTickets = sqliteTable(
  "product_tickets",
  {
    productId: integer("product_id")
      .notNull()
      .references(() => products.id, { onDelete: "cascade" }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    linkedBy: integer("linked_by").references(() => users.id, { onDelete: "set null" }),
    linkedAt: time("linked_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.productId, t.ticketId] }), index("product_tickets_ticket_idx").on(t.ticketId)],
);

// ---------- contacts (plugins/contacts) ----------

/** A customer: who they are, whatever channel they write on. */
export const contacts = sqliteTable(
  "contacts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The contact's address in links (/contacts/{uid}): random, URL-safe. */
    uid: text("uid").notNull(),
    name: text("name").notNull().default(""),
    salutation: text("salutation").notNull().default(""),
    /** One of the spec's ID types (plugins/contacts/identity.ts); "" is None. */
    idType: text("id_type").notNull().default(""),
    idNumber: text("id_number").notNull().default(""),
    notes: text("notes").notNull().default(""),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
    /** The name as duplicates are found by: lower case, spaces collapsed (plugins/contacts/duplicates.server.ts). */
    nameKey: text("name_key").notNull().default(""),
    /** The contact this one was merged into (its page redirects there), and when; null while it stands on its own. */
    mergedInto: integer("merged_into"),
    mergedAt: time("merged_at"),
  },
  (t) => [
    uniqueIndex("contacts_uid_idx").on(t.uid),
    index("contacts_name_idx").on(t.name),
    index("contacts_created_id_idx").on(t.createdAt, t.id),
    index("contacts_name_key_idx").on(t.nameKey),
  ],
);

/** How a contact is recognised: an email (lower case), an E.164 phone, or a channel id ("<CHANNEL>:<customer id>"); one contact per value. */
export const contactIdentities = sqliteTable(
  "contact_identities",
  {
    contactId: integer("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    /** email | phone | channel */
    kind: text("kind").notNull(),
    value: text("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.value] }), index("contact_identities_contact_idx").on(t.contactId)],
);

/** A field admins add to every contact (plugins/contacts/custom-fields.server.ts): text, number, date or select. */
export const contactFields = sqliteTable("contact_fields", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  label: text("label").notNull(),
  /** text | number | date | select */
  kind: text("kind").notNull(),
  /** A select's choices, one per line. */
  options: text("options").notNull().default(""),
  required: bool("required").notNull().default(false),
  active: bool("active").notNull().default(true),
  position: integer("position").notNull().default(0),
  createdAt: time("created_at").notNull(),
});

/**
 * A custom contact tab (spec section 3: id, name, start_index, data_per_page): a named slice of the
 * contacts in the order they were added, from the start_index-th (0 first), data_per_page a page;
 * shown as a tab of /contacts and by GET /api/contacts/custom (plugins/contacts/tabs.server.ts).
 */
export const contactTabs = sqliteTable("contact_tabs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  startIndex: integer("start_index").notNull().default(0),
  dataPerPage: integer("data_per_page").notNull().default(20),
  position: integer("position").notNull().default(0),
  createdAt: time("created_at").notNull(),
});

/** A contact's value of a custom field, as typed (a number as written, a date as YYYY-MM-DD). */
export const contactFieldValues = sqliteTable(
  "contact_field_values",
  {
    contactId: integer("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    fieldId: integer("field_id")
      .notNull()
      .references(() => contactFields.id, { onDelete: "cascade" }),
    value: text("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.contactId, t.fieldId] })],
);

/** Which contact each conversation belongs to (written by the contacts plugin's linking job). */
export const contactTickets = sqliteTable(
  "contact_tickets",
  {
    ticketId: integer("ticket_id")
      .primaryKey()
      .references(() => tickets.id, { onDelete: "cascade" }),
    contactId: integer("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    /**
     * The conversation's last activity (tickets.updated_at, kept in step by database triggers, see
     * migration contact_timeline_order): the contact's timeline is read newest first from the index
     * alone instead of joining and sorting all of a busy contact's conversations per page.
     */
    updatedAt: integer("updated_at").notNull().default(0),
  },
  (t) => [index("contact_tickets_contact_updated_idx").on(t.contactId, t.updatedAt, t.ticketId)],
);

// ---------- campaigns (plugins/campaign) ----------

/** An outbound effort: one template sent from one channel account to a list of contacts, at most per_minute a minute. */
export const campaigns = sqliteTable(
  "campaigns",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    channelAccountId: integer("channel_account_id").references(() => channelAccounts.id, { onDelete: "set null" }),
    /** The message, with {{name}} and {{salutation}} filled in per contact. */
    template: text("template").notNull().default(""),
    /** all | search: which contacts it goes to (those with an identity of the channel's kind). */
    audience: text("audience").notNull().default("all"),
    query: text("query").notNull().default(""),
    /** When sending starts (null: as soon as it is started). */
    startsAt: time("starts_at"),
    /** draft | scheduled | sending | paused | done */
    state: text("state").notNull().default("draft"),
    perMinute: integer("per_minute").notNull().default(60),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [index("campaigns_created_idx").on(t.createdAt, t.id)],
);

/** One contact of a campaign: the address used and what became of it; the row is the guard that sends once. */
export const campaignRecipients = sqliteTable(
  "campaign_recipients",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    campaignId: integer("campaign_id")
      .notNull()
      .references(() => campaigns.id, { onDelete: "cascade" }),
    contactId: integer("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    address: text("address").notNull(),
    /** pending | sent | failed | opted_out | skipped */
    state: text("state").notNull().default("pending"),
    ticketId: integer("ticket_id").references(() => tickets.id, { onDelete: "set null" }),
    messageId: integer("message_id").references(() => messages.id, { onDelete: "set null" }),
    error: text("error"),
    sentAt: time("sent_at"),
  },
  (t) => [
    uniqueIndex("campaign_recipients_contact_idx").on(t.campaignId, t.contactId),
    index("campaign_recipients_state_idx").on(t.campaignId, t.state, t.id),
    index("campaign_recipients_sent_idx").on(t.campaignId, t.sentAt),
  ],
);

/** Who asked not to be sent campaigns (STOP on a channel, or an admin's entry): an E.164 phone, an email or a channel id. */
export const campaignOptouts = sqliteTable(
  "campaign_optouts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** phone | email | channel */
    kind: text("kind").notNull(),
    value: text("value").notNull(),
    /** Where it was asked (SMS, WHATSAPP...; "manual" by an admin). */
    channel: text("channel").notNull().default(""),
    at: time("at").notNull(),
  },
  (t) => [uniqueIndex("campaign_optouts_value_idx").on(t.kind, t.value)],
);

// ---------- calendar (plugins/calendar) ----------

/** An appointment, maybe with a customer (contact) and a ticket; recurring when rrule is set. */
export const appointments = sqliteTable(
  "appointments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    title: text("title").notNull(),
    contactId: integer("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    ticketId: integer("ticket_id").references(() => tickets.id, { onDelete: "set null" }),
    /** Whose appointment it is: they see it in their feed and get its reminder. */
    ownerId: integer("owner_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    startsAt: time("starts_at").notNull(),
    endsAt: time("ends_at").notNull(),
    allDay: bool("all_day").notNull().default(false),
    /** RFC 5545 RRULE without the "RRULE:" prefix (FREQ=WEEKLY;COUNT=4), "" for a single event. */
    rrule: text("rrule").notNull().default(""),
    /** When the last occurrence ends (null: the series never ends), so a view's window is an index range. */
    seriesEndsAt: time("series_ends_at"),
    location: text("location").notNull().default(""),
    notes: text("notes").notNull().default(""),
    reminderMinutes: integer("reminder_minutes"),
    /** When the owner was last reminded: an occurrence whose reminder time is later is still due. */
    remindedAt: time("reminded_at"),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [
    index("appointments_starts_idx").on(t.startsAt),
    index("appointments_owner_starts_idx").on(t.ownerId, t.startsAt),
    index("appointments_contact_idx").on(t.contactId),
    index("appointments_ticket_idx").on(t.ticketId),
  ],
);

/** Each user's private iCalendar feed: its secret token is the whole of its address. */
export const calendarFeeds = sqliteTable(
  "calendar_feeds",
  {
    userId: integer("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    token: text("token").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [uniqueIndex("calendar_feeds_token_idx").on(t.token)],
);

/** A merge of one contact into another: what moved, so that an undo within a day puts exactly that back. */
export const contactMerges = sqliteTable(
  "contact_merges",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    intoId: integer("into_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    fromId: integer("from_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    /** JSON: {identities: [[kind, value]], tickets: [ticket ids]} */
    moved: text("moved").notNull(),
    byUser: integer("by_user").references(() => users.id, { onDelete: "set null" }),
    mergedAt: time("merged_at").notNull(),
    undoneAt: time("undone_at"),
  },
  (t) => [index("contact_merges_into_idx").on(t.intoId, t.mergedAt), index("contact_merges_from_idx").on(t.fromId)],
);

/** A CSV import: the uploaded file (in the file storage), its dry run's counts and how far the import got. */
export const contactImports = sqliteTable(
  "contact_imports",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    fileKey: text("file_key").notNull(),
    fileName: text("file_name").notNull().default(""),
    byUser: integer("by_user").references(() => users.id, { onDelete: "set null" }),
    createdAt: time("created_at").notNull(),
    /** checked (dry run done) | importing | done */
    state: text("state").notNull().default("checked"),
    rows: integer("rows").notNull().default(0),
    good: integer("good").notNull().default(0),
    bad: integer("bad").notNull().default(0),
    /** Data rows handled by committed batches: a resumed import starts after them. */
    doneRows: integer("done_rows").notNull().default(0),
    imported: integer("imported").notNull().default(0),
    finishedAt: time("finished_at"),
  },
  (t) => [index("contact_imports_created_idx").on(t.createdAt)],
);

/** Each imported row's key (a digest of its fields) and the contact it made: an import run again skips these. */
export const contactImportRows = sqliteTable(
  "contact_import_rows",
  {
    rowKey: text("row_key").primaryKey(),
    contactId: integer("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    importId: integer("import_id").references(() => contactImports.id, { onDelete: "set null" }),
  },
  (t) => [index("contact_import_rows_contact_idx").on(t.contactId)],
);

// ---------- knowledge base (plugins/kb) ----------

/**
 * An article of the knowledge base (type kb) or the manual (type manual), in one of the five UI
 * languages, written in Markdown by admins. Internal ones are for agents only (never on /support).
 * Full-text search: SQLite FTS5 table kb_search kept by triggers; PostgreSQL a GIN index over
 * to_tsvector('simple', title || body) and trigram indexes (migration of plugins/kb).
 */
export const kbArticles = sqliteTable(
  "kb_articles",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** kb | manual */
    type: text("type").notNull().default("kb"),
    /** en | ms | zh | ja | ko */
    lang: text("lang").notNull().default("en"),
    category: text("category").notNull().default(""),
    title: text("title").notNull(),
    /** The meta description of its public page. */
    summary: text("summary").notNull().default(""),
    body: text("body").notNull(),
    /** public | internal */
    visibility: text("visibility").notNull().default("public"),
    /** Starts at 1; each save stores the previous one in kb_article_versions. */
    version: integer("version").notNull().default(1),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    updatedBy: integer("updated_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [index("kb_articles_list_idx").on(t.type, t.lang, t.visibility, t.updatedAt), index("kb_articles_updated_idx").on(t.updatedAt)],
);

/** An article as it was before a save (its number is the version it had). */
export const kbArticleVersions = sqliteTable(
  "kb_article_versions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    articleId: integer("article_id")
      .notNull()
      .references(() => kbArticles.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    type: text("type").notNull(),
    lang: text("lang").notNull(),
    category: text("category").notNull(),
    title: text("title").notNull(),
    summary: text("summary").notNull(),
    body: text("body").notNull(),
    visibility: text("visibility").notNull(),
    editedBy: integer("edited_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: time("created_at").notNull(),
  },
  (t) => [uniqueIndex("kb_article_versions_article_idx").on(t.articleId, t.version)],
);

/** Images of articles, kept in the product's file storage; public at /support/image/{id}. */
export const kbImages = sqliteTable("kb_images", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  fileKey: text("file_key").notNull(),
  name: text("name").notNull(),
  contentType: text("content_type").notNull(),
  size: integer("size").notNull(),
  createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: time("created_at").notNull(),
});

// ---------- kanban board (plugins/kanban) ----------

/** An admin's own board column (the board by custom columns); position orders them left to right. */
export const kanbanColumns = sqliteTable(
  "kanban_columns",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    position: integer("position").notNull().default(0),
    createdAt: time("created_at").notNull(),
  },
  (t) => [uniqueIndex("kanban_columns_name_idx").on(sql`lower(${t.name})`), index("kanban_columns_position_idx").on(t.position, t.id)],
);

/** A ticket's place on the custom board; version counts its moves (a ticket without a row sits in no column). */
export const kanbanCards = sqliteTable(
  "kanban_cards",
  {
    ticketId: integer("ticket_id")
      .primaryKey()
      .references(() => tickets.id, { onDelete: "cascade" }),
    columnId: integer("column_id")
      .notNull()
      .references(() => kanbanColumns.id, { onDelete: "cascade" }),
    version: integer("version").notNull().default(1),
    movedBy: integer("moved_by").references(() => users.id, { onDelete: "set null" }),
    movedAt: time("moved_at").notNull(),
  },
  (t) => [index("kanban_cards_column_idx").on(t.columnId)],
);

/**
 * An agent's SIP account (spec section 3: sip_number, password, active) for the softphone: the one
 * list Kamailio authenticates REGISTERs against (plugins/calls). The password is sealed
 * (app/secrets.server.ts).
 */
export const sipAccounts = sqliteTable(
  "sip_accounts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sipNumber: text("sip_number").notNull(),
    password: text("password").notNull(),
    active: bool("active").notNull().default(true),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [uniqueIndex("sip_accounts_number_idx").on(t.sipNumber), uniqueIndex("sip_accounts_user_idx").on(t.userId)],
);

/**
 * A DID (plugins/calls): a number the trunk delivers calls to, and whom it rings. An inbound call
 * on it rings the agents of its queue (the department's agents with a SIP account, and/or the
 * agents listed in call_did_agents) for ring_timeout_seconds; then, with voicemail on, the product's
 * voicemail answers with the greeting and records the caller's message.
 */
export const callDids = sqliteTable(
  "call_dids",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** E.164: + and 7 to 15 digits */
    number: text("number").notNull(),
    /** the department whose agents it rings (null: only the listed agents) */
    departmentId: integer("department_id").references(() => departments.id, { onDelete: "set null" }),
    ringTimeoutSeconds: integer("ring_timeout_seconds").notNull().default(20),
    voicemail: bool("voicemail").notNull().default(true),
    /** spoken (espeak-ng) to the caller before the message is recorded; empty: the default greeting */
    greeting: text("greeting").notNull().default(""),
    /** how the queue rings: ring_all (all at once), round_robin or longest_idle (one agent at a time) */
    ringStrategy: text("ring_strategy").notNull().default("ring_all"),
    /** round robin: the extension the last call started with, or that answered it; the next call starts after it */
    roundRobinLast: text("round_robin_last").notNull().default(""),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (t) => [uniqueIndex("call_dids_number_idx").on(t.number)],
);

/** The agents a DID rings by name (besides its department's). */
export const callDidAgents = sqliteTable(
  "call_did_agents",
  {
    didId: integer("did_id")
      .notNull()
      .references(() => callDids.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.didId, t.userId] }), index("call_did_agents_user_idx").on(t.userId)],
);

/**
 * One phone call (plugins/calls), as the SIP server reported it: the CALL ticket it made or
 * updated in the conversation home, and what spec section 3 asks of a call ticket (call_direction,
 * did, phone) with its durations and hang-up cause. Kamailio's events are keyed by the SIP
 * Call-integer("id").primaryKey({ autoIncrement: true }), so a repeated event changes nothing.
 */
export const calls = sqliteTable(
  "calls",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    sipCallId: text("sip_call_id").notNull(),
    /** inbound (from a trunk to a DID), outbound (to a trunk) or internal (agent to agent) */
    direction: text("direction").notNull(),
    did: text("did").notNull().default(""),
    /** the caller's number (E.164 for outside numbers, else the extension) and the number called */
    fromNumber: text("from_number").notNull(),
    toNumber: text("to_number").notNull(),
    /** the agent on the call: the callee of an inbound or internal call, the caller of an outbound one */
    agentUserId: integer("agent_user_id").references(() => users.id, { onDelete: "set null" }),
    /** ringing, talking, held, ended */
    state: text("state").notNull().default("ringing"),
    startedAt: time("started_at").notNull(),
    answeredAt: time("answered_at"),
    heldAt: time("held_at"),
    holdMs: integer("hold_ms").notNull().default(0),
    endedAt: time("ended_at"),
    acwMs: integer("acw_ms"),
    /** normal (a party hung up: caller or callee), busy, no_answer, declined, cancelled, failed, server_restart */
    hangupCause: text("hangup_cause").notNull().default(""),
    hangupBy: text("hangup_by").notNull().default(""),
    /** nobody answered and the caller left a message: the recording is the voicemail (/voicemail) */
    voicemail: bool("voicemail").notNull().default(false),
    /** the call's recording in the product's storage (one Opus file of both legs), made after hang-up */
    recordingKey: text("recording_key"),
    recordingType: text("recording_type"),
    recordingBytes: integer("recording_bytes"),
    recordingMs: integer("recording_ms"),
  },
  (t) => [uniqueIndex("calls_sip_call_id_idx").on(t.sipCallId), index("calls_ticket_idx").on(t.ticketId), index("calls_state_idx").on(t.state)],
);

/**
 * A call's transcript (spec section 3 "call transcript entry"): one row per utterance of one leg,
 * source "agent" or "other"; made after the call from its recording (plugins/calls transcription).
 */
export const callTranscripts = sqliteTable(
  "call_transcripts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    callId: integer("call_id")
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    source: text("source").notNull(),
    transcription: text("transcription").notNull(),
    translatedTranscription: text("translated_transcription").notNull().default(""),
    interim: bool("interim").notNull().default(false),
    /** where in the recording the utterance starts */
    offsetMs: integer("offset_ms").notNull().default(0),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("call_transcripts_call_idx").on(t.callId, t.offsetMs)],
);

// ---- SLA engine (plugins/sla) ----

/** An SLA policy: per label and priority ("" any), minutes of business time for each target. */
export const slaPolicies = sqliteTable(
  "sla_policies",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    labelId: integer("label_id")
      .notNull()
      .references(() => labels.id, { onDelete: "cascade" }),
    /** H, M, L or "" for any priority. */
    priority: text("priority").notNull().default(""),
    firstResponseMinutes: integer("first_response_minutes"),
    nextResponseMinutes: integer("next_response_minutes"),
    /** Null: the label's own sla (minutes). */
    resolutionMinutes: integer("resolution_minutes"),
    /** The warning comes when fewer than this many minutes are left to resolve. */
    warnMinutes: integer("warn_minutes").notNull().default(15),
    pauseOnPending: bool("pause_on_pending").notNull().default(true),
    createdAt: time("created_at").notNull(),
  },
  (t) => [uniqueIndex("sla_policies_label_priority_idx").on(t.labelId, t.priority)],
);

/** Each ticket's SLA due times, recomputed when the ticket moves (seen_updated_at: tickets.updated_at then). */
export const slaTickets = sqliteTable(
  "sla_tickets",
  {
    ticketId: integer("ticket_id")
      .primaryKey()
      .references(() => tickets.id, { onDelete: "cascade" }),
    /** The label whose policy applies. */
    labelId: integer("label_id"),
    firstDueAt: time("first_due_at"),
    nextDueAt: time("next_due_at"),
    resolutionDueAt: time("resolution_due_at"),
    /** The nearest due time not yet met and its target (first, next, resolution). */
    dueAt: time("due_at"),
    dueTarget: text("due_target"),
    warnAt: time("warn_at"),
    warnMinutes: integer("warn_minutes").notNull().default(15),
    /** When the scheduler looks at it next (the warning or the deadline); null: nothing to watch. */
    nextCheckAt: time("next_check_at"),
    /** ok, warning, breached, paused, met or none. */
    state: text("state").notNull().default("none"),
    /** The resolution's outcome once known: met or breached. */
    outcome: text("outcome"),
    breachedAt: time("breached_at"),
    seenUpdatedAt: time("seen_updated_at").notNull(),
    computedAt: time("computed_at").notNull(),
  },
  (t) => [index("sla_tickets_next_check_idx").on(t.nextCheckAt), index("sla_tickets_state_idx").on(t.state)],
);

/** Warnings and breaches sent: one per ticket, kind, target and due time, so none is sent twice. */
export const slaAlerts = sqliteTable(
  "sla_alerts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    /** warning or breach */
    kind: text("kind").notNull(),
    /** first, next or resolution */
    target: text("target").notNull(),
    dueAt: time("due_at").notNull(),
    /** Counted against the plan's monthly SLA alert limit (false: the limit was reached, nobody was told). */
    counted: bool("counted").notNull().default(true),
    createdAt: time("created_at").notNull(),
  },
  (t) => [uniqueIndex("sla_alerts_once_idx").on(t.ticketId, t.kind, t.target, t.dueAt), index("sla_alerts_created_idx").on(t.createdAt)],
);

// ---------- AI (plugins/ai) ----------

/** The AI service's settings (adapter, base URL, model, sealed key, limits) and each day's use (key "usage:YYYY-MM-DD"). */
export const aiSettings = sqliteTable("ai_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

/** What the analysis job read in one message (spec: the message's emotion, emotion_2, personality, classification, context). */
export const aiMessageAnalysis = sqliteTable(
  "ai_message_analysis",
  {
    messageId: integer("message_id")
      .primaryKey()
      .references(() => messages.id, { onDelete: "cascade" }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    /** The customer wrote it (false: an agent). */
    fromCustomer: bool("from_customer").notNull(),
    language: text("language").notNull().default(""),
    emotion: text("emotion").notNull().default(""),
    /** Percent, 0..100. */
    confidence: integer("confidence").notNull().default(0),
    /** JSON: each emotion's share in percent (emotion_2). */
    emotions: text("emotions").notNull().default("{}"),
    classification: text("classification").notNull().default(""),
    classConfidence: integer("class_confidence").notNull().default(0),
    intent: text("intent").notNull().default(""),
    subject: text("subject").notNull().default(""),
    personality: text("personality").notNull().default(""),
    degraded: bool("degraded").notNull().default(false),
    truncated: bool("truncated").notNull().default(false),
    /** Which adapter answered (offline-1, openai:model). */
    analyser: text("analyser").notNull().default(""),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("ai_message_analysis_ticket_idx").on(t.ticketId, t.messageId)],
);

/** The ticket's roll-up of its messages' analyses (spec: emotion_2 counts, customerEmotion, agentEmotion, context). */
export const aiTicketAnalysis = sqliteTable("ai_ticket_analysis", {
  ticketId: integer("ticket_id")
    .primaryKey()
    .references(() => tickets.id, { onDelete: "cascade" }),
  /** JSON: emotion name to the number of customer messages that showed it (emotion_2). */
  emotionCounts: text("emotion_counts").notNull().default("{}"),
  customerEmotion: text("customer_emotion").notNull().default(""),
  customerConfidence: integer("customer_confidence").notNull().default(0),
  agentEmotion: text("agent_emotion").notNull().default(""),
  classification: text("classification").notNull().default(""),
  intent: text("intent").notNull().default(""),
  subject: text("subject").notNull().default(""),
  personality: text("personality").notNull().default(""),
  language: text("language").notNull().default(""),
  degraded: bool("degraded").notNull().default(false),
  truncated: bool("truncated").notNull().default(false),
  /** A call's voice (spec section 9's levels 0, 25, 50, 75, 100; null: no voice analysed): the customer's energy and pace. The call list filters on them. */
  energy: integer("energy"),
  pace: integer("pace"),
  updatedAt: time("updated_at").notNull(),
});

/**
 * End-to-end encryption (plugins/e2ee): each user's RSA-OAEP public keys as their browsers
 * published them, newest current (replacedAt null) and the older ones kept, so a change is seen.
 */
export const e2eeUserKeys = sqliteTable(
  "e2ee_user_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** SPKI, base64. */
    publicKey: text("public_key").notNull(),
    /** SHA-256 of the SPKI, hex. */
    fingerprint: text("fingerprint").notNull(),
    createdAt: time("created_at").notNull(),
    replacedAt: time("replaced_at"),
  },
  (t) => [index("e2ee_user_keys_user_idx").on(t.userId, t.replacedAt)],
);

/** A conversation's key versions: who made each, when (the key itself exists only wrapped, below). */
export const e2eeKeyVersions = sqliteTable(
  "e2ee_key_versions",
  {
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: time("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.version] })],
);

/** A conversation key version wrapped (RSA-OAEP) for one participant's public key. */
export const e2eeWrappedKeys = sqliteTable(
  "e2ee_wrapped_keys",
  {
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** base64 */
    wrappedKey: text("wrapped_key").notNull(),
    /** The fingerprint of the public key it was wrapped for. */
    fingerprint: text("fingerprint").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.version, t.userId] }), index("e2ee_wrapped_keys_user_idx").on(t.userId)],
);

/** A user's private key, wrapped in the browser with a key derived from their passphrase (PBKDF2-SHA-256 then AES-GCM). */
export const e2eeKeyBackups = sqliteTable("e2ee_key_backups", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** base64 of the wrapped PKCS#8 */
  blob: text("blob").notNull(),
  salt: text("salt").notNull(),
  iv: text("iv").notNull(),
  iterations: integer("iterations").notNull(),
  /** The fingerprint of the public key it belongs to. */
  fingerprint: text("fingerprint").notNull(),
  updatedAt: time("updated_at").notNull(),
});

/**
 * An end-to-end encrypted conversation with `encryption_method` 'aes' (plugins/e2ee): its key is
 * derived in each participant's browser from a passphrase they share out of band (PBKDF2-SHA-256
 * with this salt); the server keeps only the salt and a key-check value (a known text sealed with
 * that key, so a browser can tell a wrong passphrase), never the passphrase or the key.
 */
export const e2eeSharedKeys = sqliteTable("e2ee_shared_keys", {
  ticketId: integer("ticket_id")
    .primaryKey()
    .references(() => tickets.id, { onDelete: "cascade" }),
  /** base64, 16 random bytes */
  salt: text("salt").notNull(),
  iterations: integer("iterations").notNull(),
  /** The first browser's envelope of the check text; null until a participant entered the passphrase. */
  keyCheck: text("key_check"),
  checkedBy: integer("checked_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: time("created_at").notNull(),
});

/**
 * A live chat visitor's public key (RSA-OAEP, made in the visitor's browser and kept in its
 * storage; plugins/livechat and plugins/e2ee): one per chat, the visitor having no account.
 * A new one (another browser, cleared storage) replaces it and the chat needs a new key version.
 */
export const e2eeVisitorKeys = sqliteTable("e2ee_visitor_keys", {
  ticketId: integer("ticket_id")
    .primaryKey()
    .references(() => tickets.id, { onDelete: "cascade" }),
  /** SPKI, base64. */
  publicKey: text("public_key").notNull(),
  /** SHA-256 of the SPKI, hex. */
  fingerprint: text("fingerprint").notNull(),
  createdAt: time("created_at").notNull(),
});

/** A live chat's conversation key version wrapped for its visitor's public key. */
export const e2eeVisitorWrappedKeys = sqliteTable(
  "e2ee_visitor_wrapped_keys",
  {
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    /** base64 */
    wrappedKey: text("wrapped_key").notNull(),
    /** The fingerprint of the visitor key it was wrapped for. */
    fingerprint: text("fingerprint").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.version] })],
);

/**
 * Earlier key versions a participant offered to another (sharing history): kept per sharer, and
 * taken into e2ee_wrapped_keys only once the recipient's browser has opened that version's
 * messages with it. A forged offer (the server cannot open one) so never blocks an honest one.
 */
export const e2eeKeyShares = sqliteTable(
  "e2ee_key_shares",
  {
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    /** Who it is for. */
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sharedBy: integer("shared_by")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** base64 */
    wrappedKey: text("wrapped_key").notNull(),
    /** The fingerprint of the recipient's public key it was wrapped for. */
    fingerprint: text("fingerprint").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.version, t.userId, t.sharedBy] }), index("e2ee_key_shares_user_idx").on(t.userId)],
);

/** Video meetings (plugin meeting): started from a conversation (ticket_id) or the shell (none). */
export const meetings = sqliteTable(
  "meetings",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** the /meeting/{token} path: random, unguessable */
    token: text("token").notNull(),
    ticketId: integer("ticket_id").references(() => tickets.id, { onDelete: "cascade" }),
    hostUserId: integer("host_user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull().default(""),
    /** names of everyone who joined, JSON list, for the end's system message */
    attendees: text("attendees").notNull().default("[]"),
    /** how the media goes: "mesh" (browser to browser) until it grows past the mesh limit, then "sfu" (Janus) for good */
    media: text("media").notNull().default("mesh"),
    startedAt: time("started_at").notNull(),
    endedAt: time("ended_at"),
  },
  (t) => [uniqueIndex("meetings_token_idx").on(t.token), index("meetings_ticket_idx").on(t.ticketId)],
);

/** Who may join a meeting besides the conversation's agents: agents by user id, guests by a one-time link (its hash). */
export const meetingInvites = sqliteTable(
  "meeting_invites",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    meetingId: integer("meeting_id")
      .notNull()
      .references(() => meetings.id, { onDelete: "cascade" }),
    userId: integer("user_id").references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull().default(""),
    /** sha256 of a guest's one-time key; null for agents */
    keyHash: text("key_hash"),
    /** sha256 of the browser secret bound to the link at first use */
    boundHash: text("bound_hash"),
    usedAt: time("used_at"),
    createdAt: time("created_at").notNull(),
  },
  (t) => [index("meeting_invites_meeting_idx").on(t.meetingId), uniqueIndex("meeting_invites_key_idx").on(t.keyHash)],
);

/**
 * Phone numbers and bank accounts found in customers' messages (plugins/ai scam hints), digits
 * only: the same number sent by several unrelated contacts is a hint of a scam.
 */
export const aiNumbers = sqliteTable(
  "ai_numbers",
  {
    messageId: integer("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    /** phone | account */
    kind: text("kind").notNull(),
    value: text("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.value] }), index("ai_numbers_value_idx").on(t.value, t.ticketId)],
);

/**
 * Scam and risk hints found in a call's transcript (plugins/ai, after the call is transcribed):
 * one row per hint, its text's values as JSON (plugin_ai.scam.<kind>). Listed on /call_verification.
 */
export const aiCallHints = sqliteTable(
  "ai_call_hints",
  {
    callId: integer("call_id")
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    evidence: text("evidence").notNull(),
    hintValues: text("hint_values").notNull().default("{}"),
    /** 0..100 */
    confidence: integer("confidence").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.callId, t.kind, t.evidence] }), index("ai_call_hints_kind_idx").on(t.kind, t.callId)],
);

/**
 * The calls whose transcript the scam check has read (plugins/ai), hints or none: the backfill
 * looks here, by key, for the calls it still has to queue.
 */
export const aiCallChecks = sqliteTable("ai_call_checks", {
  callId: integer("call_id")
    .primaryKey()
    .references(() => calls.id, { onDelete: "cascade" }),
  checkedAt: time("checked_at").notNull(),
});

/** The language an agent chose for a conversation (plugins/ai translation): the visitor's messages are shown in it. */
export const aiTicketLanguage = sqliteTable("ai_ticket_language", {
  ticketId: integer("ticket_id")
    .primaryKey()
    .references(() => tickets.id, { onDelete: "cascade" }),
  lang: text("lang").notNull(),
  updatedAt: time("updated_at").notNull(),
});

/** A message translated into a language (translated_text), by the adapter named in `translator`. */
export const aiTranslations = sqliteTable(
  "ai_translations",
  {
    messageId: integer("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    lang: text("lang").notNull(),
    text: text("text").notNull(),
    translator: text("translator").notNull().default(""),
    createdAt: time("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.messageId, t.lang] })],
);

/**
 * What became of a reply recommendation (plugins/ai feedback.server.ts): offered when the panel or
 * the API showed it, then used (sent as it was), edited (sent changed) or dismissed. One row per
 * customer message and kind.
 */
export const aiRecommendationFeedback = sqliteTable(
  "ai_recommendation_feedback",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    /** The customer's message the recommendation answers. */
    messageId: integer("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    kind: text("kind").notNull(),
    /** The draft as offered (what a reply is compared with). */
    draft: text("draft").notNull(),
    /** '' (offered, nothing done yet), used, edited or dismissed. */
    outcome: text("outcome").notNull().default(""),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    replyMessageId: integer("reply_message_id"),
    offeredAt: time("offered_at").notNull(),
    decidedAt: time("decided_at"),
  },
  (t) => [
    uniqueIndex("ai_rec_feedback_message_kind_idx").on(t.messageId, t.kind),
    index("ai_rec_feedback_ticket_idx").on(t.ticketId, t.outcome),
    index("ai_rec_feedback_decided_idx").on(t.decidedAt),
  ],
);

/** The agent's final label of a conversation's emotion and classification, with what the AI predicted then (the prediction validator). */
export const aiTicketLabels = sqliteTable(
  "ai_ticket_labels",
  {
    ticketId: integer("ticket_id")
      .primaryKey()
      .references(() => tickets.id, { onDelete: "cascade" }),
    emotion: text("emotion").notNull().default(""),
    classification: text("classification").notNull().default(""),
    predictedEmotion: text("predicted_emotion").notNull().default(""),
    predictedClassification: text("predicted_classification").notNull().default(""),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    labelledAt: time("labelled_at").notNull(),
  },
  (t) => [index("ai_ticket_labels_at_idx").on(t.labelledAt)],
);

/** A word or instrument admins watch for in customers' messages (plugins/analyst trade alerts). */
export const tradeAlertRules = sqliteTable("trade_alert_rules", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** As the admin typed it; matched case-insensitively as a whole word. */
  keyword: text("keyword").notNull(),
  active: bool("active").notNull().default(true),
  createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
  createdAt: time("created_at").notNull(),
});

/** A customer's message that matched a rule: once per rule and message (the alert is sent once). */
export const tradeAlertHits = sqliteTable(
  "trade_alert_hits",
  {
    ruleId: integer("rule_id")
      .notNull()
      .references(() => tradeAlertRules.id, { onDelete: "cascade" }),
    messageId: integer("message_id")
      .notNull()
      .references(() => messages.id, { onDelete: "cascade" }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    createdAt: time("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.messageId] }), index("trade_alert_hits_ticket_idx").on(t.ticketId)],
);
