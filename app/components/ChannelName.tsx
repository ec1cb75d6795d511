// A channel as agents see it: the provider's logo (simple-icons, CC0) or the house's icon, then its
// name. The icon is decorative: the name is always written beside it.
import { useTranslation } from "react-i18next";
import { siFacebook, siInstagram, siLine, siMessenger, siTelegram, siWhatsapp, siX } from "simple-icons";
import type { Channel } from "~/conversation/channels";
import { Icon, IconPath } from "./Icon";

const LOGOS: Partial<Record<Channel, string>> = {
  WHATSAPP: siWhatsapp.path,
  FB_PAGE_POST: siFacebook.path,
  FB_PM: siMessenger.path,
  TW_DM: siX.path,
  TW_MENTION: siX.path,
  LINE_DM: siLine.path,
  TELEGRAM: siTelegram.path,
  IG_PM: siInstagram.path,
  IG_POST: siInstagram.path,
  IG_MENTION: siInstagram.path,
};

const HOUSE_ICONS: Partial<Record<Channel, string>> = {
  chat: "chat",
  LIVECHAT: "livechat",
  LIVECHAT2: "livechat",
  EMAIL: "mail",
  GRAPH_EMAIL: "mail",
  WAUCHAT: "bot",
  MANUAL: "edit",
  CALL: "call",
  SMS: "sms",
};

const SIZE = 14;

export function ChannelIcon({ channel }: { channel: string }) {
  const logo = LOGOS[channel as Channel];
  if (logo) return <IconPath d={logo} size={SIZE} />;
  const house = HOUSE_ICONS[channel as Channel];
  return house ? <Icon name={house} size={SIZE} /> : null;
}

/** The channel's icon and name, in a `.channel` span (the list row's first cell). */
export function ChannelName({ channel, className = "channel" }: { channel: string; className?: string }) {
  const { t } = useTranslation();
  return (
    <span className={className} data-channel={channel}>
      <ChannelIcon channel={channel} />
      {t(`channel.${channel}`, { defaultValue: channel })}
    </span>
  );
}
