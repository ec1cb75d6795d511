// The admin's announcement, until dismissed (a plain form: works without JavaScript).
import { Form, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";

export function AnnouncementBanner({ announcement }: { announcement: { text: string; by: string; at: number } }) {
  const { t } = useTranslation();
  const location = useLocation();
  return (
    <div className="banner banner-blue announcement" role="status">
      <span>
        <strong>{t("announcement.from", { name: announcement.by })}</strong> {announcement.text}
      </span>
      <Form method="post" action="/preferences" className="inline">
        <input type="hidden" name="intent" value="announcement_seen" />
        <input type="hidden" name="value" value={announcement.at} />
        <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
        <button type="submit" className="button">
          {t("announcement.dismiss")}
        </button>
      </Form>
    </div>
  );
}
