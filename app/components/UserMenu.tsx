import { Form, Link, useLocation } from "@remix-run/react";
import { useTranslation } from "react-i18next";
import { Icon } from "./Icon";
import { StatusForm } from "./StatusForm";

export interface MenuUser {
  name: string;
  username: string;
  type: string;
  photo: string | null;
  secondStatus: string;
  statusReason: string;
}

/** A <details> menu: opens and closes without JavaScript. */
export function UserMenu({ user, statusError }: { user: MenuUser; statusError: string | null }) {
  const { t } = useTranslation();
  const location = useLocation();
  const status = user.secondStatus || "ONLINE";
  return (
    <details className="user-menu" open={statusError ? true : undefined}>
      <summary>
        <span className={`presence presence-${status.toLowerCase()}`} aria-hidden="true" />
        <Icon name="user" />
        <span className="user-name">{user.name}</span>
        <span className="sr-only">{t(`status.${status}`)}</span>
      </summary>
      <div className="menu-panel">
        <p className="muted">
          {user.username} · {t(`userType.${user.type}`)}
        </p>
        <ul>
          <li>
            <Link to="/settings">{t("menu.settings")}</Link>
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
        <StatusForm current={status} redirectTo={withoutStatusError(location.pathname, location.search)} error={statusError} />
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
