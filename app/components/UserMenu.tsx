import { Form, Link, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";
import { StatusForm } from "./StatusForm";
import { presenceClass, statusLabel, type CustomStatus } from "~/presence";
import { ProfileLink } from "~/accounts/components/ProfileCard";
import { closeMenuOnEscape } from "./dialog-focus";

export interface MenuUser {
  name: string;
  username: string;
  type: string;
  photo: string | null;
  secondStatus: string;
  statusReason: string;
}

/** A <details> menu: opens and closes without JavaScript (with it, Escape closes it too). */
export function UserMenu({ user, statusError, customStatuses = [] }: { user: MenuUser; statusError: string | null; customStatuses?: CustomStatus[] }) {
  const { t } = useTranslation();
  const location = useLocation();
  const status = user.secondStatus || "ONLINE";
  return (
    <details className="user-menu" open={statusError ? true : undefined} onKeyDown={closeMenuOnEscape}>
      <summary>
        <span className={presenceClass(status)} aria-hidden="true" />
        {user.photo ? <img src={user.photo} alt="" width={22} height={22} style={{ borderRadius: "50%", objectFit: "cover" }} /> : <Icon name="user" />}
        <span className="user-name">{user.name}</span>
        <span className="sr-only">{statusLabel(t, status)}</span>
      </summary>
      <div className="menu-panel">
        <p className="muted">
          <ProfileLink username={user.username}>{user.username}</ProfileLink> · {t(`userType.${user.type}`)}
        </p>
        <ul>
          <li>
            <Link to="/settings">{t("menu.settings")}</Link>
          </li>
          <li>
            <Link to="/profile">{t("account.menuProfile")}</Link>
          </li>
          {user.type === "admin" ? (
            <>
              <li>
                <Link to="/settings/labels">{t("menu.labels")}</Link>
              </li>
              <li>
                <Link to="/admin/editions">{t("menu.editions")}</Link>
              </li>
              <li>
                <Link to="/admin/announcement">{t("announcement.menu")}</Link>
              </li>
            </>
          ) : null}
          <li>
            <Link to="/about">{t("menu.about")}</Link>
          </li>
        </ul>
        <StatusForm current={status} redirectTo={withoutStatusError(location.pathname, location.search)} error={statusError} custom={customStatuses} />
        <LogoutForm />
      </div>
    </details>
  );
}

export function LogoutForm() {
  const { t } = useTranslation();
  return (
    <Form method="post" action="/logout">
      <button type="submit" className="button">
        {t("menu.logout")}
      </button>
    </Form>
  );
}

function withoutStatusError(pathname: string, search: string) {
  const params = new URLSearchParams(search);
  params.delete("status_error");
  const rest = params.toString();
  return rest ? `${pathname}?${rest}` : pathname;
}
