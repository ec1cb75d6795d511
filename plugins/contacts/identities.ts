// How a contact is recognised (contact_identities): an email, a phone and a channel id, each
// written one way so that one person matches whatever form a channel gives.
import { parsePhoneNumberFromString } from "libphonenumber-js";

export type IdentityKind = "email" | "phone" | "channel";
export interface Identity {
  kind: IdentityKind;
  value: string;
}

/**
 * Numbers written the local way (012-345 6789) are Malaysian: the product's home market, and the
 * country of the spec's ID types. A workspace setting can replace this once another market asks.
 */
export const HOME_COUNTRY = "MY";

/** An email address as matched: trimmed and lower-cased; "" when it is none. */
export function normaliseEmail(email: string | null | undefined) {
  const value = (email ?? "").trim().toLowerCase();
  return value.includes("@") && value.length <= 254 ? value : "";
}

/**
 * A phone number as E.164 (+60123456789), or "" when it is not one: +60 12-345 6789, 0060123456789,
 * 012-345 6789 (local) and 60123456789 (providers send digits without the plus) are one number.
 */
export function normalisePhone(phone: string | null | undefined) {
  const raw = (phone ?? "").trim().replace(/^00/, "+");
  if (!raw || raw.length > 40) return "";
  const tries = raw.startsWith("+") ? [raw] : /^0/.test(raw) ? [] : [`+${raw}`];
  for (const candidate of tries) {
    const parsed = parsePhoneNumberFromString(candidate);
    if (parsed?.isValid()) return parsed.number;
  }
  if (raw.startsWith("+")) return "";
  const local = parsePhoneNumberFromString(raw, HOME_COUNTRY);
  return local?.isValid() ? local.number : "";
}

/** A name as duplicates are matched: lower case, spaces trimmed and collapsed ("  Aisha  RAHMAN" is "aisha rahman"). */
export const nameKeyOf = (name: string) => name.trim().replace(/\s+/g, " ").toLowerCase();

/** A customer's id on a messaging channel: "<CHANNEL>:<customer id>". */
export const channelIdentity = (channel: string, customerId: string) => `${channel.toUpperCase()}:${customerId.trim()}`;

/** What a conversation tells of its customer, strongest first (an email, then a phone, then a channel id). */
export function identitiesOfTicket(ticket: { channel: string; contactEmail: string; contactPhone: string; customerId: string }): Identity[] {
  const out: Identity[] = [];
  const email = normaliseEmail(ticket.contactEmail);
  if (email) out.push({ kind: "email", value: email });
  const phone = normalisePhone(ticket.contactPhone);
  if (phone) out.push({ kind: "phone", value: phone });
  if (ticket.customerId.trim()) out.push({ kind: "channel", value: channelIdentity(ticket.channel, ticket.customerId) });
  return out;
}
