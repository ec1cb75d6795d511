import { json } from "@remix-run/node";
import { NotFound } from "~/components/NotFound";

export const loader = () => json(null, { status: 404 });
export default NotFound;
