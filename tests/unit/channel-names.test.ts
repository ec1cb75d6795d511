// Customers' names as providers hand them over (issue 17's bad input: emoji, right-to-left and
// zero-width text in names): invisible padding goes, what the name shows stays, and a direction
// override in a name cannot turn the text shown after it backwards.
import { describe, expect, it } from "vitest";
import { closeDirectionControls, displayName } from "@plugins/channels/messaging.server";

const RLO = "\u202e";
const PDF = "\u202c";
const RLI = "\u2067";
const PDI = "\u2069";

describe("customers' names from providers", () => {
  it("drops zero-width spaces, word joiners, byte-order marks and control characters", () => {
    expect(displayName("\ufeffSiti\u200b Rahman\u2060\u0007", "x")).toBe("Siti Rahman");
  });

  it("keeps emoji whole, joined sequences and flags included, and a joiner inside a word", () => {
    expect(displayName("Aisyah 👩‍💻🇲🇾", "x")).toBe("Aisyah 👩‍💻🇲🇾");
    expect(displayName("👨‍👩‍👧", "x")).toBe("👨‍👩‍👧");
    // Persian spelling needs its zero-width non-joiner
    expect(displayName("\u200cمی\u200cخواهم\u200d", "x")).toBe("می\u200cخواهم");
  });

  it("keeps right-to-left names as written", () => {
    expect(displayName("  محمد علي  ", "x")).toBe("محمد علي");
    expect(displayName("שרה כהן", "x")).toBe("שרה כהן");
  });

  it("closes a direction override or isolate the name leaves open, and drops closers it never opened", () => {
    expect(displayName(`Siti ${RLO}Rahman`, "x")).toBe(`Siti ${RLO}Rahman${PDF}`);
    expect(closeDirectionControls(`${RLI}a${RLO}b`)).toBe(`${RLI}a${RLO}b${PDF}${PDI}`);
    expect(closeDirectionControls(`a${PDF}b${PDI}`)).toBe("ab");
    // a PDI closes its isolate and the override opened inside it; a PDF inside an isolate cannot close what is outside it
    expect(closeDirectionControls(`${RLO}a${RLI}b${RLO}c${PDI}d`)).toBe(`${RLO}a${RLI}b${RLO}c${PDI}d${PDF}`);
    expect(closeDirectionControls(`${RLO}a${RLI}b${PDF}c`)).toBe(`${RLO}a${RLI}bc${PDI}${PDF}`);
    // balanced already: unchanged
    expect(closeDirectionControls(`x${RLO}y${PDF}z`)).toBe(`x${RLO}y${PDF}z`);
  });

  it("falls back when nothing visible is left, and cuts a long name between characters, never inside an emoji", () => {
    expect(displayName("\u200b\u200d\u200c", "+60123456789")).toBe("+60123456789");
    expect(displayName(`${RLO}\u200d`, "U123")).toBe("U123");
    expect(displayName(undefined, "U123")).toBe("U123");
    const long = displayName(`${"a".repeat(119)}😀😀`, "x");
    expect(long).toBe(`${"a".repeat(119)}😀`);
  });
});
