// What a campaign is made of, for the server and the pages alike (client-safe).

/** The campaign list's page (spec section 9: campaign page size 5). */
export const LIST_PAGE = 5;
export const LIST_PAGE_MAX = 100;
/** Recipients shown at a time on a campaign's page. */
export const RECIPIENT_PAGE = 20;
export const NAME_MAX = 120;
export const TEMPLATE_MAX = 1600;
export const QUERY_MAX = 100;
export const PER_MINUTE_MAX = 1000;
export const PER_MINUTE_DEFAULT = 60;
export const OPTOUT_MAX = 254;

/** The new and edit form's fields. */
export const FIELDS = ["name", "account", "template", "perMinute", "startsAt", "audience", "query"] as const;
export type CampaignFields = Record<(typeof FIELDS)[number], string>;
export const OPTOUT_FIELDS = ["value"] as const;

export const STATES = ["draft", "scheduled", "sending", "paused", "done"] as const;
export type CampaignState = (typeof STATES)[number];
export const RECIPIENT_STATES = ["pending", "sent", "failed", "opted_out", "skipped"] as const;

/** The placeholders a template may use. */
export const PLACEHOLDERS = ["{{name}}", "{{salutation}}"];
