// Background work at server start: the job worker, then each plugin's `start` module (listeners,
// pollers, job kinds), a plugin after the plugins it requires. Whether or not an edition enables a
// plugin: mail and webhooks reach the whole server, not one host.
import { createJobWorker } from "~/jobs/queue.server";
import { defineLinkPreviewJob } from "~/conversation/link-preview.server";
import { definePushJob } from "~/conversation/push.server";
import { warnings, type LogFn } from "~/ops/log.server";
import { pluginModule } from "./modules.server";
import { plugins } from "./registry.server";
import type { PluginManifest } from "./manifest";

export type PluginStartModule = { start(): Promise<() => Promise<void>> };

/** Plugins in an order where each comes after those it requires. */
export function startOrder(list: PluginManifest[] = plugins()): PluginManifest[] {
  const byId = new Map(list.map((p) => [p.id, p]));
  const ordered: PluginManifest[] = [];
  const visit = (p: PluginManifest, path: string[]) => {
    if (ordered.includes(p)) return;
    if (path.includes(p.id)) throw new Error(`plugins require each other in a circle: ${[...path, p.id].join(" -> ")}`);
    for (const id of p.requires) {
      const needed = byId.get(id);
      if (needed) visit(needed, [...path, p.id]);
    }
    ordered.push(p);
  };
  for (const p of list) visit(p, []);
  return ordered;
}

/**
 * Starts the job worker and every plugin's background work; answers a function that stops them all.
 * `runJobs: false`: the kinds are defined but this process works no jobs (a web node whose worker
 * processes do, ADR 050).
 */
export async function startBackgroundWork({ runJobs = true, log = warnings("plugins") }: { runJobs?: boolean; log?: LogFn } = {}) {
  const stops: (() => Promise<void>)[] = [];
  // the host's own job kinds
  defineLinkPreviewJob();
  definePushJob();
  for (const plugin of startOrder()) {
    if (!plugin.start) continue;
    try {
      const mod = await pluginModule<PluginStartModule>(plugin.id, plugin.start);
      stops.push(await mod.start());
    } catch (error) {
      // one plugin's trouble (a port in use) must not keep the desk down
      log(`plugin ${plugin.id} did not start`, error);
    }
  }
  // after the plugins: their job kinds are defined by now
  const worker = runJobs ? createJobWorker().start() : undefined;
  return {
    /** When the job worker last finished a pass (readiness). */
    workerPassAt: () => worker?.lastPassAt() ?? 0,
    /** Stops the worker (its running jobs may take until `deadline`), then the plugins' work; answers whether every job finished. */
    async stop(deadline = Infinity) {
      const finished = (await worker?.stop(deadline)) ?? true;
      for (const stop of stops.reverse()) await stop().catch((error) => log("stopping background work failed", error));
      return finished;
    },
  };
}
