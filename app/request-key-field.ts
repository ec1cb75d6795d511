/** The form field naming a write for idempotency (server: app/request-keys.server.ts). */
export const REQUEST_KEY_FIELD_NAME = "request_key";
