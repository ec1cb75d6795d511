// The adapter of each channel kind, from the plugins that declare one (plugin.json `channels`).
import { pluginModule } from "~/plugins/modules.server";
import { channelAdapterFiles } from "~/plugins/registry.server";
import type { Channel } from "~/conversation/channels";
import type { ChannelAdapter } from "./adapter";

/** The channel kinds an admin can add accounts of. */
export const connectableKinds = (): Channel[] => channelAdapterFiles().map((c) => c.kind);

export async function adapterFor(kind: string): Promise<ChannelAdapter | undefined> {
  const found = channelAdapterFiles().find((c) => c.kind === kind);
  if (!found) return undefined;
  return (await pluginModule<{ adapter: ChannelAdapter }>(found.pluginId, found.file)).adapter;
}
