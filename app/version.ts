/** Build 1.1.10, tag b (spec section 1); id grows with every release for the new-version notice. */
export const VERSION = { id: 11010, build: "1.1.10", tag: "b", description: "Foundation release" } as const;
