// The crypto module lives in the host (app/conversation/e2ee-crypto.ts) since the live chat's
// visitor page seals and opens messages too; the plugin's code goes on importing it from here.
export * from "~/conversation/e2ee-crypto";
