// Plugin code the host calls: the files a manifest names for `socket` and for each widget's
// `loader`. remix.config.js compiles each into the server build as a route that never matches
// (no path, no children), so it shares the build's modules with the pages; server.ts hands them
// over at start. Outside the build (unit tests, `npm run dev`'s first look) a file is imported
// from its source.
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ServerBuild } from "@remix-run/node";

/** Route id of a plugin module in the server build (remix.config.js gives the same). */
export const moduleRouteId = (pluginId: string, file: string) => `module/${pluginId}/${file}`;

// kept on globalThis: server.ts and the Remix build are two bundles with their own copy of this file
const g = globalThis as unknown as { __omnideskPluginModules?: Map<string, unknown> };
const registered = (g.__omnideskPluginModules ??= new Map());

export function registerPluginModules(build: ServerBuild) {
  for (const [id, route] of Object.entries(build.routes)) if (id.startsWith("module/")) registered.set(id, route.module);
}

export async function pluginModule<T = Record<string, unknown>>(pluginId: string, file: string): Promise<T> {
  const found = registered.get(moduleRouteId(pluginId, file));
  if (found) return found as T;
  const source = pathToFileURL(path.resolve("plugins", pluginId, file)).href;
  return (await import(/* @vite-ignore */ source)) as T;
}

/** "file#name": the named export of a plugin module (a widget's data loader). */
export async function pluginExport<T>(pluginId: string, reference: string): Promise<T> {
  const [file, name] = reference.split("#");
  const value = (await pluginModule(pluginId, file))[name];
  if (value === undefined) throw new Error(`plugins/${pluginId}/${file} has no export "${name}"`);
  return value as T;
}
