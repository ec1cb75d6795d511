import { describe, expect, it } from "vitest";
import { VERSION } from "./version";
import { serverVersion } from "./version.server";

describe("the version a server announces", () => {
  it("is the build's own unless the release sets VERSION_ID and VERSION_NOTES", () => {
    expect(serverVersion({})).toEqual({ id: VERSION.id, description: VERSION.description });
    expect(serverVersion({ VERSION_ID: "11011", VERSION_NOTES: "Faster search" })).toEqual({ id: 11011, description: "Faster search" });
    expect(serverVersion({ VERSION_ID: "11011" })).toEqual({ id: 11011, description: VERSION.description });
    expect(serverVersion({ VERSION_ID: "soon" }).id).toBe(VERSION.id);
  });
});
