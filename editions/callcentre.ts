import { defineEdition } from "./types";

export default defineEdition({
  id: "callcentre",
  title: "OmniDesk Call Centre",
  hosts: ["call.*"],
  variant: "call",
  plugins: [
    "tickets",
    "chat",
    "channels",
    "email",
    "meta",
    "whatsapp",
    "calls",
    "reports",
    "payment",
    "contacts",
    "forms",
    "case",
    "campaign",
    "calendar",
    "kb",
    "voice_analysis",
    "customer_analysis",
    "meeting",
  ],
  hiddenByDefault: ["call_config", "call", "call_report", "voicemail"],
});
