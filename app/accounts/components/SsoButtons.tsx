// The login form's single sign-on part: "Sign in with <name>" for each enabled provider (plain
// links: the flow is a full-page trip to the provider, with or without JavaScript), and the
// reason an SSO attempt was refused.
import { useTranslation } from "react-i18next";

export type SsoLoginOptions = { providers: { id: number; name: string }[]; error: string | null };

export function SsoButtons({ providers, error, product }: SsoLoginOptions & { product: string }) {
  const { t } = useTranslation();
  if (!providers.length && !error) return null;
  return (
    <div className="stack">
      {error ? (
        <p className="form-error" role="alert">
          {t(`sso.error.${error}`, { product })}
        </p>
      ) : null}
      {providers.length ? (
        <nav className="stack" aria-label={t("sso.login.label")}>
          <p className="muted">{t("sso.login.or")}</p>
          {providers.map((p) => (
            <a key={p.id} href={`/sso/${p.id}`} className="button">
              {t("sso.login.signInWith", { name: p.name })}
            </a>
          ))}
        </nav>
      ) : null}
    </div>
  );
}
