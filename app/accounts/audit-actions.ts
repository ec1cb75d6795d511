// The audit log's vocabulary, shared by the server and the page: every action the page has a label
// for (public/locales/<lang>/audit.json, audit.action.*), and the families the filter offers.
export const AUDIT_ACTIONS = [
  "signin.ok",
  "signin.failed",
  "user.created",
  "user.invited",
  "user.updated",
  "user.disabled",
  "user.enabled",
  "user.tfa_reset",
  "invite.accepted",
  "invite.resent",
  "password.changed",
  "password.reset",
  "password.reset_requested",
  "profile.updated",
  "tfa.enabled",
  "tfa.disabled",
  "session.revoked",
  "session.refresh_reuse",
  "sso.provider_added",
  "sso.provider_changed",
  "sso.provider_removed",
  "sso.identity_linked",
  "status.custom_added",
  "status.custom_removed",
  "settings.changed",
  "plugin.toggled",
  "edition.changed",
  "export.csv",
  "workspace.created",
  "link.renewed",
] as const;

/** "signin" finds signin.ok and signin.failed: the first word of each known action. */
export const AUDIT_FAMILIES = [...new Set(AUDIT_ACTIONS.map((a) => a.split(".")[0]))];

/** Target kinds with a label (audit.target.*); others show as written. */
export const AUDIT_TARGETS = [
  "user",
  "edition",
  "plugin",
  "report",
  "settings",
  "session",
  "sso",
  "sso_provider",
  "status",
  "invite",
  "workspace",
  "link",
] as const;
