// The settings pages' own navigation: personal pages for everyone, workspace pages for admins.
import { NavLink } from "@remix-run/react";
import { useTranslation } from "react-i18next";

const PERSONAL = [
  { to: "/settings", key: "preferences" },
  { to: "/profile", key: "profile" },
  { to: "/settings/sessions", key: "sessions" },
] as const;
const WORKSPACE = [
  { to: "/settings/users", key: "users" },
  { to: "/settings/links", key: "links" },
  { to: "/settings/statuses", key: "statuses" },
  { to: "/settings/security", key: "security" },
  { to: "/settings/sso", key: "sso" },
  { to: "/settings/audit", key: "audit" },
] as const;

export function SettingsNav({ admin }: { admin: boolean }) {
  const { t } = useTranslation();
  const links = admin ? [...PERSONAL, ...WORKSPACE] : PERSONAL;
  return (
    <nav className="settings-nav" aria-label={t("settingsNav.label")}>
      <ul>
        {links.map((l) => (
          <li key={l.to}>
            <NavLink to={l.to} end={l.to === "/settings"}>
              {t(`settingsNav.${l.key}`)}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
