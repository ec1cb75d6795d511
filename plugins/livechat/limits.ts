// Live chat limits, shared by server and browser.

/** Longest visitor message (characters); longer ones are refused with a clear error. */
export const MAX_VISITOR_MESSAGE = 5000;
/** Live chats a visitor address may start per 10 minutes, and messages a visit may send per minute. */
export const VISITS_PER_ADDRESS = 20;
export const MESSAGES_PER_MINUTE = 30;
