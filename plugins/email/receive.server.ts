// Inbound mail to message (the EMAIL adapter's receive). Built in issue 14 (helper "mailin").
import type { ChannelAccount, InboundEvent, ReceiveOutcome } from "@plugins/channels/adapter";

export async function receiveMail(_event: InboundEvent, _account: ChannelAccount | null): Promise<ReceiveOutcome> {
  return { state: "quarantined", reason: "not built yet" };
}
