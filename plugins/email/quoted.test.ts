import { describe, expect, it } from "vitest";
import { foldQuoted } from "./quoted";

describe("folding the quoted history of a reply", () => {
  it.each([
    ["Gmail (English)", "Thanks, that fixed it.\n\nOn Mon, 23 Nov 2026 at 10:02, Support <support@omnidesk.localhost> wrote:\n> Please restart the router.\n"],
    [
      "Outlook",
      "Thanks, that fixed it.\r\n\r\n-----Original Message-----\r\nFrom: Support <support@omnidesk.localhost>\r\nSent: Monday, November 23, 2026 10:02\r\nSubject: [#100234] Router\r\n\r\nPlease restart the router.\r\n",
    ],
    ["plain > quotes", "Thanks, that fixed it.\n\n> Please restart the router.\n> Support\n"],
    ["Apple Mail (German)", "Thanks, that fixed it.\n\nAm 23.11.2026 um 10:02 schrieb Support <support@omnidesk.localhost>:\n\n> Please restart the router.\n"],
    [
      "Gmail (French)",
      "Thanks, that fixed it.\n\nLe lun. 23 nov. 2026 à 10:02, Support <support@omnidesk.localhost> a écrit :\n> Please restart the router.\n",
    ],
  ])("%s: shows only the new text and keeps the quote aside", (_client, mail) => {
    const { visible, quoted } = foldQuoted(mail);
    expect(visible).toBe("Thanks, that fixed it.");
    expect(quoted).toContain("Please restart the router.");
  });

  it("keeps a mail that has no quote whole", () => {
    expect(foldQuoted("Hello,\n\nmy order 5512 has not arrived.\n\nAna")).toEqual({ visible: "Hello,\n\nmy order 5512 has not arrived.\n\nAna", quoted: "" });
  });

  it("keeps a mail that is nothing but a quote visible instead of empty", () => {
    expect(foldQuoted("> Please restart the router.\n").visible).toBe("> Please restart the router.");
  });
});
