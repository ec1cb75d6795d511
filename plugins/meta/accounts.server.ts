// One Meta app serves many Pages (and WhatsApp numbers, Instagram accounts) at one callback URL:
// Meta signs every call with the app's secret and may batch entries of several of them in one call,
// whichever account's URL it was given. An entry for another of our accounts of the same app is
// that account's, not a stranger's.
import type { Channel } from "~/conversation/channels";
import type { ChannelAccount } from "@plugins/channels/adapter";
import { sameAppAccount } from "@plugins/channels/accounts.server";

/**
 * The account an entry belongs to: the one whose URL took the call when the entry's object id
 * (`config[idField]`: page id, phone number id, Instagram id) is its own, else the enabled account
 * of these kinds with that id and the same app secret (only the same app can have signed the call);
 * null when none.
 */
export const metaAccountFor = (took: ChannelAccount, kinds: Channel[], idField: string, objectId: string) =>
  sameAppAccount(took, kinds, idField, objectId, "appSecret");
