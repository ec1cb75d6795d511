// The product's own bots (spec: bot, chatbot, translatebot): senders shown as a bot, not as a person.
export const BOT_USERNAMES = ["bot", "chatbot", "translatebot"] as const;
export const isBotUsername = (username: string | undefined) => !!username && (BOT_USERNAMES as readonly string[]).includes(username);
