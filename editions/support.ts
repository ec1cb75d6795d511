import { defineEdition } from "./types";

export default defineEdition({
  id: "support",
  title: "OmniDesk Support",
  hosts: ["support.*"],
  variant: "support",
  plugins: [
    "tickets",
    "chat",
    "channels",
    "email",
    "livechat",
    "reports",
    "payment",
    "contacts",
    "forms",
    "case",
    "campaign",
    "calendar",
    "kanban",
    "kb",
    "product",
    "sms",
    "meeting",
  ],
  hiddenByDefault: [],
});
