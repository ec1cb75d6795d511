import { defineEdition } from "./types";

export default defineEdition({
  id: "trading",
  title: "OmniDesk Trading Insight",
  hosts: ["trade.*"],
  variant: "trading",
  plugins: ["tickets", "chat", "channels", "email", "reports", "payment", "contacts", "ai", "calendar", "kb", "analyst", "customer_analysis"],
  hiddenByDefault: [],
});
