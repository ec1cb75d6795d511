// How a page sits in the shell at narrow widths, declared by its route's `handle` (data, so the
// host needs no plugin): "list" pages (/, /ticket) have only an empty detail, so phones show the
// list panel there instead; "list-only" pages (/mobile/ticket) show the list in place of the
// detail panel at every width. Any other page shows its detail, and phones hide the list.
import { useMatches } from "@remix-run/react";

export type ShellView = "list" | "list-only" | "page";
export interface ShellHandle {
  shell?: ShellView;
}

/** The deepest matched route's view. */
export function useShellView(): ShellView {
  const views = useMatches()
    .map((m) => (m.handle as ShellHandle | undefined)?.shell)
    .filter((v): v is ShellView => !!v);
  return views.at(-1) ?? "page";
}
