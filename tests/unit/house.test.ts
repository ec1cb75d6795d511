// The house rules of docs/architecture.md, read from the code's imports: plugins reach each other
// only through what their manifest `requires`, the host (app/) and db/ never import a plugin or
// the app above them, and no two modules import each other, even for types.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = process.cwd();
const SOURCE = /\.(ts|tsx)$/;

function walk(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : walk(rel);
    return SOURCE.test(entry.name) ? [rel] : [];
  });
}

/** Import specifiers of a file: static, type-only, re-exports and import() calls. */
export function specifiers(text: string): string[] {
  return [
    ...text.matchAll(/(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|^import\s+["']([^"']+)["']/gm),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
}

const EXTENSIONS = ["", ".ts", ".tsx", "/index.ts", "/index.tsx"];
/** The repository file a specifier names, or undefined for packages. */
export function resolve(from: string, spec: string): string | undefined {
  const aliases: [string, string][] = [
    ["~/", "app/"],
    ["@db/", "db/"],
    ["@plugins/", "plugins/"],
    ["@editions/", "editions/"],
  ];
  const alias = aliases.find(([a]) => spec.startsWith(a));
  const base = alias ? alias[1] + spec.slice(alias[0].length) : spec.startsWith(".") ? path.posix.join(path.posix.dirname(from), spec) : undefined;
  if (!base) return undefined;
  return EXTENSIONS.map((e) => base + e).find((f) => fs.existsSync(path.join(ROOT, f)) && fs.statSync(path.join(ROOT, f)).isFile()) ?? base;
}

const files = ["app", "plugins", "db", "editions"].flatMap(walk).filter((f) => !/\.test\.tsx?$/.test(f));
const graph = new Map(files.map((f) => [f, specifiers(fs.readFileSync(path.join(ROOT, f), "utf8")).map((s) => ({ spec: s, target: resolve(f, s) }))]));
const pluginOf = (file: string) => (file.startsWith("plugins/") ? file.split("/")[1] : undefined);
const manifests = new Map(
  fs
    .readdirSync(path.join(ROOT, "plugins"))
    .filter((id) => fs.existsSync(path.join(ROOT, "plugins", id, "plugin.json")))
    .map((id) => [id, JSON.parse(fs.readFileSync(path.join(ROOT, "plugins", id, "plugin.json"), "utf8")) as { requires?: string[] }]),
);

/** Imports that break the plugin rule: another plugin by path, or one the manifest does not require. */
export function pluginViolations(edges: Map<string, { spec: string; target?: string }[]>, requiresOf: (id: string) => string[]) {
  const out: string[] = [];
  for (const [file, imports] of edges) {
    const own = pluginOf(file);
    if (!own) continue;
    for (const { spec, target } of imports) {
      const other = target && pluginOf(target);
      if (!other || other === own) continue;
      if (!spec.startsWith("@plugins/")) out.push(`${file}: imports ${spec} by path (use @plugins/${other}/... and require it)`);
      else if (!requiresOf(own).includes(other)) out.push(`${file}: imports ${spec}, but plugins/${own}/plugin.json does not require "${other}"`);
    }
  }
  return out;
}

describe("the house", () => {
  it("finds the modules it checks", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get("app/conversation/model.server.ts")?.length).toBeGreaterThan(3);
  });

  it("lets a plugin import another plugin only through @plugins/<id>/ of a plugin its manifest requires", () => {
    expect(pluginViolations(graph, (id) => manifests.get(id)?.requires ?? [])).toEqual([]);
  });

  it("catches a plugin that reaches into another by path or without requiring it", () => {
    const fixture = new Map([
      [
        "plugins/a/x.ts",
        [
          { spec: "../../b/y", target: "plugins/b/y.ts" },
          { spec: "@plugins/c/z", target: "plugins/c/z.ts" },
          { spec: "./own", target: "plugins/a/own.ts" },
        ],
      ],
    ]);
    expect(pluginViolations(fixture, () => [])).toHaveLength(2);
    expect(pluginViolations(fixture, () => ["c"])).toHaveLength(1);
  });

  it("names only plugins that exist in requires", () => {
    for (const [id, m] of manifests) for (const r of m.requires ?? []) expect(manifests.has(r), `${id} requires ${r}`).toBe(true);
  });

  it("keeps the host (app/) and db/ free of plugin imports, and db/ free of app/", () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      for (const { spec, target } of imports) {
        if (!target) continue;
        if ((file.startsWith("app/") || file.startsWith("db/") || file.startsWith("editions/")) && target.startsWith("plugins/"))
          wrong.push(`${file} -> ${spec}`);
        if (file.startsWith("db/") && target.startsWith("app/")) wrong.push(`${file} -> ${spec}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("has no import circles, type-only imports included", () => {
    const circles: string[] = [];
    const state = new Map<string, "open" | "done">();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, "open");
      stack.push(file);
      for (const { target } of graph.get(file) ?? []) {
        if (!target || !graph.has(target)) continue;
        if (state.get(target) === "open") circles.push([...stack.slice(stack.indexOf(target)), target].join(" -> "));
        else if (!state.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, "done");
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(circles).toEqual([]);
  });
});

describe("which plugin serves a path", () => {
  it("treats /livechat/{n} as the agent's page, trailing slash or not, and a token as the visitor's", async () => {
    const { pluginForPath } = await import("~/plugins/registry.server");
    for (const path of ["/livechat/123", "/livechat/123/", "/livechat/%31%32%33/"]) {
      expect(pluginForPath(path)?.isPublic, path).toBe(false);
      expect(pluginForPath(path)?.embeddable, path).toBe(false);
    }
    for (const path of ["/livechat/abc", "/livechat/abc/"]) expect(pluginForPath(path)?.embeddable, path).toBe(true);
  });
});
