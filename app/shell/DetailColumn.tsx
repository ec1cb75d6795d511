// The shell's detail column: the top bar (search, notifications, online agents, user menu), the
// banners and the page itself. The shell renders it, or a plugin's frame beside its list panel.
import type { ReactNode } from "react";
import { useRouteLoaderData } from "@remix-run/react";
import { UserMenu, type MenuUser } from "~/components/UserMenu";
import { StatusBanner } from "~/components/StatusBanner";
import { ExpiryBanner } from "~/components/ExpiryBanner";
import { Realtime } from "~/components/Realtime";
import { OnlineAgents } from "~/components/OnlineAgents";
import { AnnouncementBanner } from "~/components/AnnouncementBanner";
import { NotificationBell } from "~/conversation/components/Notifications";
import type { NotificationList } from "~/conversation/notifications.server";
import type { Announcement } from "~/models/announcement.server";
import type { CustomStatus } from "~/presence";

/** What the shell's loader gives the detail column (signed-in pages only). */
export interface ShellChrome {
  user: MenuUser & { statusTime: number };
  statusError: string | null;
  /** the admins' custom second statuses, for the status menu */
  customStatuses: CustomStatus[];
  popupOnCall: boolean;
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
      <Realtime viewer={{ type: chrome.user.type, popupOnCall: chrome.popupOnCall }} />
      {chrome.expiry ? <ExpiryBanner trial={chrome.expiry.trial} /> : null}
      {chrome.announcement ? <AnnouncementBanner announcement={chrome.announcement} /> : null}
      {chrome.user.secondStatus ? <StatusBanner status={chrome.user.secondStatus} since={chrome.user.statusTime} now={chrome.now} /> : null}
      <main id="detail" className="detail">
        {children}
      </main>
    </div>
  );
}
