// Every socket event name, in one place (spec section 4). Server and browser import these
// instead of writing the names, so a rename or a typo fails the typecheck.

/** The server tells browsers. */
export const SERVER_EVENTS = {
  newMessage: "newMessage",
  messageStateChanged: "messageStateChanged",
  updateTicket: "updateTicket",
  ticketStatusChanged: "ticketStatusChanged",
  createTicket: "createTicket",
  syncDelete: "syncDelete",
  receiveNote: "receiveNote",
  deleteNote: "deleteNote",
  addPin: "add-pin",
  removePin: "remove-pin",
  addReaction: "add-reaction",
  removeReaction: "remove-reaction",
  participantChanged: "participantChanged",
  channelDataUpdated: "channelDataUpdated",
  settingsChanged: "settingsChanged",
  statusUpdated: "statusUpdated",
  unreadCount2: "unreadCount2",
  announcement: "announcement",
  newNotification: "newNotification",
  newVersion: "newVersion",
  setTyping: "setTyping",
  removeTyping: "removeTyping",
  liveChatQueue: "liveChatQueue",
  liveChatEnded: "liveChatEnded",
  liveChatMergeChanged: "liveChatMergeChanged",
  removeLiveChat: "removeLiveChat",
  queueNumber: "queueNumber",
  queueAccepted: "queueAccepted",
  /** A card moved on the kanban board (plugins/kanban): every open board reloads. */
  receiveKanbanNotification: "receiveKanbanNotification",
  /** A customer's message was read by the AI service: its emotion and the ticket's (plugins/ai). */
  newEmotion: "newEmotion",
  /** ... and what the customer wants (classification, intent, subject, personality). */
  newContext: "newContext",
  /** Redis came back after an outage: events of other nodes may be missing, ask the database. */
  resync: "resync",
  /** Video meetings (plugins/meeting): someone joined or left, a peer's signal, a Janus feed to receive, the meeting ended. */
  meetingPeerJoined: "meetingPeerJoined",
  meetingPeerLeft: "meetingPeerLeft",
  meetingSignal: "meetingSignal",
  meetingFeed: "meetingFeed",
  meetingEnded: "meetingEnded",
  /** the meeting moved from mesh to Janus (it grew past the mesh limit): pages publish to Janus */
  meetingMode: "meetingMode",
} as const;

/** Browsers ask the server. */
export const CLIENT_EVENTS = {
  joinRoom: "joinRoom",
  leaveRoom: "leaveRoom",
  readMessage: "readMessage",
  readMessage2: "readMessage2",
  refreshTicketUnreadCount: "refreshTicketUnreadCount",
  refreshLiveChatUnreadCount: "refreshLiveChatUnreadCount",
  refreshChatUnreadCount: "refreshChatUnreadCount",
  sendTyping: "sendTyping",
  removeTyping: "removeTyping",
  tellOnline: "tellOnline",
  getAnnouncement: "getAnnouncement",
  acceptLiveChat: "acceptLiveChat",
  getLiveChatQueue: "getLiveChatQueue",
  registerQueue: "registerQueue",
  /** The list filters a page shows (new-ticket notices follow them: conversation/notice-filter.server.ts). */
  listFilters: "listFilters",
  /** A page that follows every ticket's status (the kanban board) starts (true) or stops (false) doing so. */
  watchStatuses: "watchStatuses",
  /** A debug shortcut's round trip (app/components/DebugShortcuts.tsx). */
  debugPing: "debugPing",
  /** Video meetings (spec section 7): presence, then WebRTC signalling (mesh) or the Janus publisher and feeds (SFU). */
  getMeetingCount: "getMeetingCount",
  joinMeeting: "joinMeeting",
  leaveMeeting: "leaveMeeting",
  meetingSignal: "meetingSignal",
  meetingPublish: "meetingPublish",
  meetingFeedAnswer: "meetingFeedAnswer",
  /** an ICE candidate for Janus as the browser finds it (trickle): for its publisher, or a feed by peerId */
  meetingTrickle: "meetingTrickle",
  meetingMedia: "meetingMedia",
} as const;

export type ServerEvent = (typeof SERVER_EVENTS)[keyof typeof SERVER_EVENTS];

/** What a live chat's visitor hears of: only that something changed (their page fetches what they may see). */
export const VISITOR_EVENTS: readonly ServerEvent[] = [SERVER_EVENTS.newMessage, SERVER_EVENTS.syncDelete, SERVER_EVENTS.liveChatEnded];
