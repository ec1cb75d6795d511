// The GRAPH_EMAIL channel adapter (plugins/channels/adapter.ts). Built in issue 14.
import type { ChannelAdapter } from "@plugins/channels/adapter";

export const adapter: ChannelAdapter = {
  kind: "GRAPH_EMAIL",
  fields: [],
  async test() {
    return { ok: false, error: "not built yet" };
  },
  async receive() {
    return { state: "quarantined", reason: "not built yet" };
  },
  async send() {
    throw new Error("not built yet");
  },
};
