// What the Telegram Bot API takes and gives, checked before anything is sent or fetched: files up
// to 50 MB through multipart uploads (photos up to 10 MB, bigger pictures go as documents), text
// messages up to 4096 characters, and customers' files up to 20 MB through getFile.
/** Delivery errors: translation keys of this plugin's texts (app/conversation/delivery.ts shows them). */
export const FILE_SIZE = "plugin_telegram.delivery.fileSize";
export const FILE_EMPTY = "plugin_telegram.delivery.fileEmpty";
/** The Test button's findings, in the same "key: detail" shape (the settings page shows them alike). */
export const NO_SECRET_TOKEN = "plugin_telegram.delivery.noSecretToken";
export const NO_BASE_URL = "plugin_telegram.delivery.noBaseUrl";
/** Why the desk refuses a reaction Telegram does not take. */
export const REACTION_REFUSED = "plugin_telegram.delivery.reactionRefused";

/** ReactionTypeEmoji: "Currently, it can be one of" these; any other emoji is REACTION_INVALID. */
export const TELEGRAM_REACTIONS = new Set(
  "👍 👎 ❤ 🔥 🥰 👏 😁 🤔 🤯 😱 🤬 😢 🎉 🤩 🤮 💩 🙏 👌 🕊 🤡 🥱 🥴 😍 🐳 ❤‍🔥 🌚 🌭 💯 🤣 ⚡ 🍌 🏆 💔 🤨 😐 🍓 🍾 💋 🖕 😈 😴 😭 🤓 👻 👨‍💻 👀 🎃 🙈 😇 😨 🤝 ✍ 🤗 🫡 🎅 🎄 ☃ 💅 🤪 🗿 🆒 💘 🙉 🦄 😘 💊 🙊 😎 👾 🤷‍♂ 🤷 🤷‍♀ 😡".split(
    " ",
  ),
);

/**
 * A desk reaction as Telegram takes it: the same emoji without its presentation selector (❤️ is
 * Telegram's ❤), else null. No look-alike stands in for another (😄 is not 😁): those are refused.
 */
export function telegramReaction(reaction: string) {
  const bare = reaction.replace(/\ufe0f/g, "");
  return TELEGRAM_REACTIONS.has(bare) ? bare : null;
}

const MB = 1024 * 1024;
/** sendDocument (and every upload): "files of any type of up to 50 MB". */
export const UPLOAD_MAX = 50 * MB;
/** sendPhoto: "The photo must be at most 10 MB in size". */
export const PHOTO_MAX = 10 * MB;
/** getFile: "bots can download files of up to 20MB in size". */
export const DOWNLOAD_MAX = 20 * MB;
/** sendMessage: "1-4096 characters after entities parsing". */
export const TEXT_MAX = 4096;

const PHOTO_TYPES = ["image/jpeg", "image/png"];

export const sizeText = (bytes: number) => (bytes >= MB ? `${Math.round(bytes / MB)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

/** How a file goes out: a picture Telegram shows inline, else a document (sent as it is). */
export const sendsAsPhoto = (file: { type: string; size: number }) => PHOTO_TYPES.includes(file.type) && file.size <= PHOTO_MAX;

/** Why Telegram would refuse this file, or null. */
export function fileProblem(file: { type: string; size: number; name: string }) {
  if (file.size > UPLOAD_MAX) return `${FILE_SIZE}: ${file.name} (${sizeText(file.size)} > ${sizeText(UPLOAD_MAX)})`;
  if (file.size <= 0) return `${FILE_EMPTY}: ${file.name}`;
  return null;
}

/** A long text as the messages Telegram takes: at most TEXT_MAX UTF-16 units each, cut at a line or space when one is near. */
export function textChunks(text: string, max = TEXT_MAX): string[] {
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > max) {
    let cut = max;
    const window = rest.slice(0, max);
    const soft = Math.max(window.lastIndexOf("\n"), window.lastIndexOf(" "));
    if (soft > max * 0.8) cut = soft + 1;
    // never between the two halves of an emoji or other astral character
    else if (/[\ud800-\udbff]/.test(rest[cut - 1])) cut--;
    chunks.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  if (rest.length || !chunks.length) chunks.push(rest);
  return chunks;
}
