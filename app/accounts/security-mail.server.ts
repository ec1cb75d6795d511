// A person hears by mail when their sign-in details change (ASVS 2.2.3 and 2.5.5): password
// changed or reset, two-factor turned on or off, or reset by an admin, the email changed (told at
// the old address). Queued in the change's own
// transaction; accounts without an email get nothing, and without a mail server it waits.
import type { Tx } from "@db/client";
import { translatorFor } from "~/i18n.server";
import { mailLanguage, queueMail } from "~/mail/outbox.server";
import { getSettings } from "~/models/settings.server";
import { formatDate, formatTime } from "~/time";
import type { UserRow } from "./users.server";

export type AccountChange = "password_changed" | "password_reset" | "tfa_enabled" | "tfa_disabled" | "tfa_reset" | "email_changed";

export async function tellAccountChanged(
  user: Pick<UserRow, "id" | "name" | "email" | "language">,
  change: AccountChange,
  where: { ip: string; at?: number; newEmail?: string },
  tx?: Tx,
) {
  if (!user.email) return;
  const at = where.at ?? Date.now();
  const settings = await getSettings();
  const t = translatorFor(await mailLanguage(user));
  const when = `${formatDate(at, settings.timezone)} ${formatTime(at, settings.timezone)} (${settings.timezone})`;
  await queueMail(
    `account_changed:${user.id}:${change}:${at}`,
    {
      to: user.email,
      subject: t("security.mail.subject"),
      text: t("security.mail.text", {
        name: user.name,
        what: t(`security.mail.change.${change}`, { email: where.newEmail ?? "" }),
        when,
        address: where.ip || "-",
      }),
    },
    tx,
  );
}
