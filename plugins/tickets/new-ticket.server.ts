// The visitors' limit of /new_ticket/{token}, kept out of the route module: its top-level code would
// otherwise run in the browser too (where there is no process.env) and stop the page's hydration.
import { RateLimiterMemory } from "rate-limiter-flexible";

/** A visitor opens at most 5 tickets in 10 minutes (refused attempts do not count; the browser tests raise it). */
const TICKETS_PER_VISITOR = Number(process.env.NEW_TICKETS_PER_VISITOR || 5);
export const newTicketLimiter = new RateLimiterMemory({ points: TICKETS_PER_VISITOR, duration: 600 });
