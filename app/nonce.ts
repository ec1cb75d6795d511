import { createContext, useContext } from "react";

/** The per-request CSP nonce for inline scripts (set by server.ts, passed through entry.server). */
export const NonceContext = createContext<string | undefined>(undefined);
export const useNonce = () => useContext(NonceContext);
