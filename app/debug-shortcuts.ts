// The hidden debug shortcuts (spec section 1): alt+shift plus a letter, for admins (or every agent
// when the workspace's debug_shortcuts setting is 1). Letters are read from event.code, so they
// work whatever the keyboard layout types with Alt (a Mac's Option gives other characters).
// Screen readers use Insert or Caps Lock (NVDA, JAWS, Narrator) and Control+Option (VoiceOver) as
// their keys, so alt+shift+letter stays out of their way; holding Alt alone shows the action mode.

export const DEBUG_SHORTCUTS = {
  KeyS: "socket",
  KeyE: "errors",
  KeyT: "testSend",
  KeyC: "crash",
  KeyV: "variables",
  KeyD: "socketIoDebug",
  KeyN: "testNotification",
} as const;

export type DebugAction = (typeof DEBUG_SHORTCUTS)[keyof typeof DEBUG_SHORTCUTS];

/** The action a key press asks for, or null when it is not one of the shortcuts. */
export function debugActionFor(e: { code: string; altKey: boolean; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean }): DebugAction | null {
  if (!e.altKey || !e.shiftKey || e.ctrlKey || e.metaKey) return null;
  return Object.hasOwn(DEBUG_SHORTCUTS, e.code) ? DEBUG_SHORTCUTS[e.code as keyof typeof DEBUG_SHORTCUTS] : null;
}

/** "Alt+Shift+S" for the action mode's list. */
export const shortcutLabel = (code: string) => `Alt+Shift+${code.replace(/^Key/, "")}`;
