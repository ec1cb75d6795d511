// The board's sizes and keys, shared by server and browser.
/** Cards a column shows at first; the rest are counted ("and N more"). */
export const CARD_CAP = 20;
/** Cards a column shows when its "Show more" was chosen. */
export const MORE_CAP = 200;
export const COLUMN_NAME_MAX = 60;
/** The status board's columns: s0 open, s1 pending, s2 resolved, s3 closed (app/conversation/constants.ts). */
export const STATUS_KEYS = ["s0", "s1", "s2", "s3"] as const;
/** The custom board's first column: tickets in none of the admins' columns. */
export const NO_COLUMN = "none";
export const statusKey = (status: number) => `s${status}`;
export const columnKey = (id: number) => `c${id}`;
