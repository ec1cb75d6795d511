// Channels of spec section 1 (and SMS, the channel of section 2's /sms) and the list kind each
// belongs to. Shared by server and browser. New channels go last: the demo seed spreads its
// tickets over this list in order.
export const CHANNELS = [
  "chat",
  "LIVECHAT",
  "LIVECHAT2",
  "EMAIL",
  "GRAPH_EMAIL",
  "WHATSAPP",
  "WAUCHAT",
  "FB_PAGE_POST",
  "FB_PM",
  "TW_DM",
  "TW_MENTION",
  "LINE_DM",
  "TELEGRAM",
  "IG_PM",
  "IG_POST",
  "IG_MENTION",
  "MANUAL",
  "CALL",
  "SMS",
] as const;
export type Channel = (typeof CHANNELS)[number];

export const KINDS = ["ticket", "chat", "call", "livechat"] as const;
export type Kind = (typeof KINDS)[number];

/** Channels that are not tickets; everything else is. */
export const CHANNELS_OF_KIND: Record<Exclude<Kind, "ticket">, Channel[]> = {
  chat: ["chat"],
  call: ["CALL"],
  livechat: ["LIVECHAT", "LIVECHAT2"],
};

export function kindOf(channel: string): Kind {
  for (const kind of ["chat", "call", "livechat"] as const) if ((CHANNELS_OF_KIND[kind] as string[]).includes(channel)) return kind;
  return "ticket";
}

/** The page of a conversation: /ticket/{n}, /chat/{n}, /call/{n} or /livechat/{n}. */
export const conversationPath = (kind: string, ticketNumber: number) => `/${kind}/${ticketNumber}`;

export const isChannel = (v: unknown): v is Channel => typeof v === "string" && (CHANNELS as readonly string[]).includes(v);
