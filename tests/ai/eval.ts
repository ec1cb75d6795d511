// `npm run eval:ai`: precision, recall and F1 per class of the offline analyser (plugins/ai) on the
// labelled sets in tests/ai/data (README.md says how they were made). dev.psv is the set the
// lexicons were tuned on; heldout.psv was written first and is never tuned on. Not part of npm test.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { analyseText, CLASSES, EMOTIONS } from "../../plugins/ai/analyse";
import { messageHints, type HintKind } from "../../plugins/ai/scam";
import { loadScamSet } from "./scam-set";

const here = path.dirname(fileURLToPath(import.meta.url));

export type Example = { emotion: string; classification: string; text: string };

export function load(name: string): Example[] {
  return fs
    .readFileSync(path.join(here, "data", name), "utf8")
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((line) => {
      const [emotion, classification, ...rest] = line.split("|");
      return { emotion, classification, text: rest.join("|") };
    });
}

type Row = { label: string; precision: number; recall: number; f1: number; support: number };

export function scores(gold: string[], predicted: string[], labels: readonly string[]) {
  const rows: Row[] = labels.map((label) => {
    let tp = 0;
    let fp = 0;
    let fn = 0;
    gold.forEach((g, i) => {
      const p = predicted[i];
      if (p === label && g === label) tp++;
      else if (p === label) fp++;
      else if (g === label) fn++;
    });
    const precision = tp + fp ? tp / (tp + fp) : 0;
    const recall = tp + fn ? tp / (tp + fn) : 0;
    const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
    return { label, precision, recall, f1, support: tp + fn };
  });
  const accuracy = gold.filter((g, i) => g === predicted[i]).length / gold.length;
  const present = rows.filter((r) => r.support > 0);
  const macroF1 = present.reduce((s, r) => s + r.f1, 0) / present.length;
  return { rows, accuracy, macroF1 };
}

const pct = (n: number) => (n * 100).toFixed(1).padStart(5);

function print(title: string, result: ReturnType<typeof scores>) {
  console.log(`\n${title}`);
  console.log(`  ${"class".padEnd(12)} precision recall    F1  support`);
  for (const r of result.rows) console.log(`  ${r.label.padEnd(12)} ${pct(r.precision)}    ${pct(r.recall)} ${pct(r.f1)}  ${String(r.support).padStart(7)}`);
  console.log(`  accuracy ${pct(result.accuracy)}   macro F1 ${pct(result.macroF1)}`);
}

function evaluate(name: string) {
  const set = load(name);
  const predictions = set.map((e) => analyseText(e.text));
  print(
    `${name}: emotion (${set.length} messages; no emotion read counts as a miss)`,
    scores(
      set.map((e) => e.emotion),
      predictions.map((p) => p.emotion),
      EMOTIONS,
    ),
  );
  print(
    `${name}: classification`,
    scores(
      set.map((e) => e.classification),
      predictions.map((p) => p.classification),
      CLASSES,
    ),
  );
  if (process.argv.includes("--errors"))
    set.forEach((e, i) => {
      const p = predictions[i];
      if (p.emotion !== e.emotion || p.classification !== e.classification)
        console.log(`  ✗ ${e.emotion}/${e.classification} -> ${p.emotion}/${p.classification}: ${e.text}`);
    });
}

/** The hints a message gives by itself (the history-based ones need a workspace: README.md). */
export const MESSAGE_KINDS: HintKind[] = ["lookalike", "mismatch", "ip_link", "pressure", "payment"];

/** A message is flagged a scam when one of its hints is at least this sure (the spec's threshold). */
export const SCAM_THRESHOLD = 0.5;

function evaluateScam(part: "dev" | "heldout") {
  const set = loadScamSet(part);
  const hints = set.map((e) => messageHints(e.text, e.html));
  const flagged = hints.map((h) => (h.some((x) => x.confidence >= SCAM_THRESHOLD) ? "scam" : "not_scam"));
  const corpus = set.filter((e) => e.source !== "hand").length;
  print(
    `scam-${part}: scam or not (${set.length} messages, ${corpus} of them from the SpamAssassin corpus; flagged when a hint is >= ${SCAM_THRESHOLD})`,
    scores(
      set.map((e) => e.label),
      flagged,
      ["scam", "not_scam"],
    ),
  );
  // per hint kind, on the examples whose kinds are labelled: each kind is a yes/no question
  const labelled = set.map((e, i) => ({ e, found: new Set(hints[i].map((h) => h.kind)) })).filter((x) => x.e.kinds);
  console.log(`\nscam-${part}: hint kinds (${labelled.length} messages with kinds labelled; any confidence)`);
  console.log(`  ${"kind".padEnd(12)} precision recall    F1  support`);
  for (const kind of MESSAGE_KINDS) {
    const r = scores(
      labelled.map((x) => (x.e.kinds!.includes(kind) ? kind : "-")),
      labelled.map((x) => (x.found.has(kind) ? kind : "-")),
      [kind],
    ).rows[0];
    console.log(`  ${r.label.padEnd(12)} ${pct(r.precision)}    ${pct(r.recall)} ${pct(r.f1)}  ${String(r.support).padStart(7)}`);
  }
  if (process.argv.includes("--errors"))
    set.forEach((e, i) => {
      const kinds = hints[i].map((h) => `${h.kind}:${h.confidence.toFixed(2)}`).join(",");
      if (flagged[i] !== e.label || (e.kinds && e.kinds.join(",") !== [...new Set(hints[i].map((h) => h.kind))].sort().join(",")))
        console.log(`  ✗ ${e.label} [${e.kinds?.join(",") ?? "?"}] -> ${flagged[i]} [${kinds}]: ${e.text.slice(0, 140).replace(/\s+/g, " ")}`);
    });
}

// run as a script (npm run eval:ai), not when the bench imports load()
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const only = process.argv.find((a) => a.endsWith(".psv") || a.startsWith("scam-"));
  if (only === "scam-dev" || only === "scam-heldout") evaluateScam(only === "scam-dev" ? "dev" : "heldout");
  else if (only) evaluate(only);
  else {
    // the emotion sets were lost once (an ignore rule kept them out of git): say so, go on with the rest
    for (const name of ["dev.psv", "heldout.psv"])
      if (fs.existsSync(path.join(here, "data", name))) evaluate(name);
      else console.log(`\n${name}: missing (tests/ai/README.md)`);
    evaluateScam("dev");
    evaluateScam("heldout");
  }
}
