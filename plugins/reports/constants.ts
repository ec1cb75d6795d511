// Report constants shared by the pages (browser) and the models. Kept free of app imports, so
// report pages add no shared chunk to the agent shell's JavaScript.
export const DAY = 24 * 60 * 60 * 1000;
export const REPORT_PAGE = 30;
export const INTERVALS = { "15m": 15 * 60 * 1000, "30m": 30 * 60 * 1000, "1h": 60 * 60 * 1000, day: DAY } as const;
export type Interval = keyof typeof INTERVALS;
export const INTERVAL_KEYS = Object.keys(INTERVALS) as Interval[];
/** Conversation kinds (app/channels.ts KINDS) and "all". */
export const REPORT_TYPES = ["ticket", "chat", "call", "livechat", "all"] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export const STATUS_ALL = 4;
/** Load More stops growing the summary page here; the CSV export has the rest. */
export const MAX_SHOWN = 1500;
