// A handful of inline SVG icons: no icon font or sprite request.
const PATHS: Record<string, string> = {
  logo: "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm-4 7h8v2H8zm0 4h6v2H8z",
  ticket: "M4 6h16v4a2 2 0 0 0 0 4v4H4v-4a2 2 0 0 0 0-4z",
  chat: "M4 4h16v12H7l-3 3z",
  livechat: "M3 5h12v9H6l-3 3zm15 3h3v9l-3-3h-7v-2h7z",
  call: "M6 3l4 4-2 2a12 12 0 0 0 7 7l2-2 4 4-3 3C9 21 3 15 3 6z",
  voicemail: "M7 9a3 3 0 1 0 0 6h10a3 3 0 1 0 0-6 3 3 0 0 0-2.8 4H9.8A3 3 0 0 0 7 9z",
  settings: "M12 8a4 4 0 1 0 0 8 4 4 0 0 0 0-8zm9 3v2l-3 1-1 2 1 3-2 1-2-2h-2l-2 2-2-1 1-3-1-2-3-1v-2l3-1 1-2-1-3 2-1 2 2h2l2-2 2 1-1 3 1 2z",
  shield: "M12 2l8 3v6c0 5-3.5 9-8 11-4.5-2-8-6-8-11V5z",
  dashboard: "M3 3h8v10H3zm10 0h8v6h-8zM3 15h8v6H3zm10-4h8v10h-8z",
  report: "M4 20V10h3v10zm6 0V4h3v16zm6 0v-7h3v7z",
  eye: "M12 5c5 0 9 4 10 7-1 3-5 7-10 7S3 15 2 12c1-3 5-7 10-7zm0 4a3 3 0 1 0 0 6 3 3 0 0 0 0-6z",
  card: "M2 5h20v14H2zm0 4h20v2H2z",
  contacts: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-8 8c0-4 4-6 8-6s8 2 8 6z",
  forms: "M5 3h14v18H5zm3 4h8v2H8zm0 4h8v2H8zm0 4h5v2H8z",
  case: "M9 4h6v3h5v13H4V7h5z",
  campaign: "M3 10v4h3l6 5V5L6 10zm13-2a5 5 0 0 1 0 8z",
  calendar: "M4 5h16v16H4zm0 5h16M8 3v4m8-4v4",
  kanban: "M3 4h5v16H3zm7 0h5v10h-5zm7 0h4v13h-4z",
  book: "M4 4h7a3 3 0 0 1 3 3v14a3 3 0 0 0-3-3H4zm16 0h-3a3 3 0 0 0-3 3v14a3 3 0 0 1 3-3h3z",
  insight: "M12 2a7 7 0 0 0-4 12.7V18h8v-3.3A7 7 0 0 0 12 2zM9 20h6v2H9z",
  sms: "M4 4h16v12H8l-4 4zm4 5h2v2H8zm4 0h2v2h-2zm4 0h2v2h-2z",
  product: "M12 2l9 5v10l-9 5-9-5V7z",
  upload: "M12 3l5 5h-3v7h-4V8H7zM4 19h16v2H4z",
  edit: "M4 17v3h3l10-10-3-3zm15-9l-3-3 2-2 3 3z",
  collapse: "M15 5l-7 7 7 7",
  expand: "M9 5l7 7-7 7",
  user: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-8 8c0-4 4-6 8-6s8 2 8 6z",
  menu: "M3 5h18v2H3zm0 6h18v2H3zm0 6h18v2H3z",
  close: "M6.4 5L12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6l5.6-5.6L5 6.4z",
  search: "M10 3a7 7 0 0 1 5.6 11.2l5.1 5.1-1.4 1.4-5.1-5.1A7 7 0 1 1 10 3zm0 2a5 5 0 1 0 0 10 5 5 0 0 0 0-10z",
  bell: "M12 3a6 6 0 0 0-6 6v4l-2 3v1h16v-1l-2-3V9a6 6 0 0 0-6-6zm-2 16a2 2 0 0 0 4 0z",
  mail: "M3 5h18v14H3zm2 3.2V17h14V8.2l-7 5z",
  bot: "M11 2h2v3h5a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V7a2 2 0 0 1 2-2h5zM8 10a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm8 0a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zm-7 5v2h6v-2z",
  agents:
    "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zm7 0a3 3 0 1 0 0-6 3 3 0 0 0 0 6zM2 20c0-3.5 3.1-6 7-6s7 2.5 7 6zm15.5 0c0-1.9-.7-3.6-1.9-4.9 3.4.2 6.4 2 6.4 4.9z",
};

export function Icon({ name, size = 20 }: { name: string; size?: number }) {
  return <IconPath d={PATHS[name] ?? PATHS.product} size={size} />;
}

/** A path on the icons' 24 x 24 grid, drawn in the text's colour; decorative (its text says it). */
export function IconPath({ d, size = 20 }: { d: string; size?: number }) {
  return (
    <svg className="icon" viewBox="0 0 24 24" width={size} height={size} aria-hidden="true" focusable="false">
      <path d={d} />
    </svg>
  );
}
