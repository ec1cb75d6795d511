// The labelled scam set (README.md): examples, which part each is in, and how they are read.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { HintKind } from "../../plugins/ai/scam";

const here = path.dirname(fileURLToPath(import.meta.url));

export type ScamLabel = "scam" | "not_scam";

export interface ScamExample {
  label: ScamLabel;
  /** The hints a careful reader would raise on the message by itself; null where not labelled (the corpus's long mails). */
  kinds: HintKind[] | null;
  /** Where it comes from: "hand" or "spam-assassin <group>/<id>". */
  source: string;
  text: string;
  html?: string;
}

/**
 * Whether an example is in the held-out part: fixed by a hash of its text, so the split was made
 * before any result was seen and does not move when examples are added (about 30% held out).
 */
export function heldOut(e: Pick<ScamExample, "text">): boolean {
  return createHash("sha256").update(e.text).digest()[0] < 77;
}

/** The examples of one part, from every file of the set. */
export function loadScamSet(part: "dev" | "heldout"): ScamExample[] {
  const dir = path.join(here, "data");
  const hand = fs
    .readFileSync(path.join(dir, "scam-hand.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => ({ source: "hand", ...JSON.parse(l) }) as ScamExample)
    .filter((e) => heldOut(e) === (part === "heldout"));
  const corpus = fs
    .readFileSync(path.join(dir, `scam-spamassassin-${part}.jsonl`), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as ScamExample);
  return [...hand, ...corpus];
}
