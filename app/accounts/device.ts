// A user agent, shortened to what a person recognises on the sessions list: browser and system.

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bCriOS\/|\bChrom(?:e|ium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/\bcurl\//, "curl"],
  [/\bokhttp\//, "Android app"],
  [/\bnode\b|\bundici\b/i, "Node.js"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\bWindows\b/, "Windows"],
  [/\biPhone\b/, "iPhone"],
  [/\biPad\b/, "iPad"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
];

const first = (list: [RegExp, string][], ua: string) => list.find(([re]) => re.test(ua))?.[1];

/** {browser, system} when recognised (either may be missing), else the agent cut to 60 characters. */
export function describeDevice(userAgent: string): { browser?: string; system?: string; raw: string } {
  const ua = userAgent.trim();
  return { browser: first(BROWSERS, ua), system: first(SYSTEMS, ua), raw: ua.length > 60 ? `${ua.slice(0, 59)}…` : ua };
}
