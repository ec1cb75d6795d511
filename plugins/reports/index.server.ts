// The reports plugin's server modules, as its routes import them. Remix empties *.server modules
// in the browser build only inside app/, so routes import plugins/reports/*.server.ts through
// this file: their database and vega code never reaches the browser's module graph (and does not
// reshuffle the agent shell's chunks). See docs/decisions/031-report-server-modules.md.
export * from "./guard.server";
export * from "./reports.server";
export * from "./dashboard.server";
export * from "./summary.server";
export * from "./share.server";
export * from "./widgets.server";
