// Conversation constants shared by server and browser.
export const MESSAGE_PAGE_SIZE = 30;
export const REACTIONS = ["👍", "❤️", "😄", "😮", "😢", "🙏"] as const;
export const MAX_MESSAGE_LENGTH = 20_000;
export const PRIORITIES = ["H", "M", "L", ""] as const;
export type Priority = (typeof PRIORITIES)[number];
/** Ticket status codes are 0 open, 1 pending, 2 resolved, 3 closed: from RESOLVED on, a ticket is done. */
export const RESOLVED = 2;
/** Pending: also a conversation a bot still answers (plugins/wauchat), kept off agents' Open list until it hands over. */
export const PENDING = 1;
/** The message type of end-to-end encrypted messages (a later issue): the server cannot read them, so search never indexes them. */
export const ENCRYPTED_MESSAGE_TYPE = "encrypted";
