// What the case pages and their JSON twins share (no server code: the page's view imports it).

/** A case's statuses, in their order of life (spec section 4: case status system messages). */
export const CASE_STATUSES = ["open", "in_progress", "resolved", "closed"] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];
/** Statuses of a case still worked on: only those can be overdue. */
export const OPEN_STATUSES: readonly CaseStatus[] = ["open", "in_progress"];

export const CASES_PAGE_SIZE = 20;
export const TITLE_MAX = 200;
export const NOTE_MAX = 5000;
export const TYPE_NAME_MAX = 60;

/** The form fields of a case (new and edit). */
export const CASE_FIELDS = ["title", "case_type", "status", "owner", "due_date"] as const;
