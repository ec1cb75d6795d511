import { redirect } from "@remix-run/node";

/** The login form lives at "/" for visitors; signed-in users go home too (spec section 2). */
export const loader = () => redirect("/");
