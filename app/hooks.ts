import { useEffect, useState } from "react";

/**
 * False on the server and until the page's JavaScript has loaded. Client-side rules that
 * disable a control must wait for it: without JavaScript nothing would ever enable it again.
 */
export function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}
