// The shell's detail column: the top bar (search, notifications, online agents, user menu), the
// banners and the page itself. The shell renders it, or a plugin's frame beside its list panel.
import { lazy, Suspense, type ReactNode } from "react";
import { useRouteLoaderData } from "@remix-run/react";
import { UserMenu, type MenuUser } from "~/components/UserMenu";
import { StatusBanner } from "~/components/StatusBanner";
import { ExpiryBanner } from "~/components/ExpiryBanner";
import { Realtime } from "~/components/Realtime";
import { RemovedModal } from "~/components/RemovedModal";
import { ListFilterReporter } from "~/components/ListFilterReporter";
import { OnlineAgents } from "~/components/OnlineAgents";
import { KeyboardShortcuts } from "~/components/KeyboardShortcuts";
import { AnnouncementBanner } from "~/components/AnnouncementBanner";
import { NotificationBell } from "~/conversation/components/Notifications";
import type { NotificationList } from "~/conversation/notifications.server";
import type { Announcement } from "~/models/announcement.server";
import type { CustomStatus } from "~/presence";

// debug tooling is for admins (or with debug_shortcuts on): its code loads only for them
const DebugShortcuts = lazy(() => import("~/components/DebugShortcuts"));

/** What the shell's loader gives the detail column (signed-in pages only). */
export interface ShellChrome {
  user: MenuUser & { statusTime: number };
  statusError: string | null;
  /** the admins' custom second statuses, for the status menu */
  customStatuses: CustomStatus[];
  popupOnCall: boolean;
  /** The debug shortcuts are on for this user (admins, or every agent when the workspace says so). */
  debug: boolean;
  notifications: NotificationList;
  announcement: Announcement | null;
  expiry: { trial: boolean } | null;
  now: number;
}

/** The shell's chrome for a frame, or null on pages shown bare (logged out, public visitor pages). */
export function useShellChrome(): ShellChrome | null {
  const shell = useRouteLoaderData("shell") as { signedIn: boolean; chrome?: ShellChrome } | undefined;
  return shell?.signedIn && shell.chrome ? shell.chrome : null;
}

export function DetailColumn({ chrome, search, children }: { chrome: ShellChrome; search?: ReactNode; children: ReactNode }) {
  return (
    <div className="detail-column">
      <header className="top-bar">
        {search}
        <NotificationBell data={chrome.notifications} now={chrome.now} />
        <OnlineAgents />
        <UserMenu user={chrome.user} statusError={chrome.statusError ? `status.${chrome.statusError}` : null} customStatuses={chrome.customStatuses} />
      </header>
      <KeyboardShortcuts />
      <Realtime viewer={{ type: chrome.user.type, username: chrome.user.username, popupOnCall: chrome.popupOnCall }} />
      <RemovedModal />
      <ListFilterReporter />
      {chrome.debug ? (
        <Suspense fallback={null}>
          <DebugShortcuts user={chrome.user} />
        </Suspense>
      ) : null}
      {chrome.expiry ? <ExpiryBanner trial={chrome.expiry.trial} /> : null}
      {chrome.announcement ? <AnnouncementBanner announcement={chrome.announcement} /> : null}
      {chrome.user.secondStatus ? <StatusBanner status={chrome.user.secondStatus} since={chrome.user.statusTime} now={chrome.now} /> : null}
      {/* focusable by script: the skip link's and the "go to" shortcuts' landing place */}
      <main id="detail" className="detail" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
