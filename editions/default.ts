import { defineEdition } from "./types";

/** Answers every host no other edition claims. */
export default defineEdition({
  id: "default",
  title: "OmniDesk",
  hosts: [],
  variant: "default",
  plugins: [
    "tickets",
    "chat",
    "channels",
    "email",
    "meta",
    "whatsapp",
    "livechat",
    "calls",
    "reports",
    "payment",
    "contacts",
    "forms",
    "case",
    "campaign",
    "calendar",
    "kanban",
    "kb",
    "customer_analysis",
    "sms",
    "product",
    "voice_analysis",
    "meeting",
  ],
  hiddenByDefault: [],
});
