// /hooks/channels/files/:token/:name: an agent's outgoing file at a signed, expiring address, for
// providers that fetch files from a URL (LINE, Facebook comments). The token is the only credential.
import type { LoaderFunctionArgs } from "@remix-run/node";
import { publicFileResponse } from "../public-files.server";

export const loader = ({ params }: LoaderFunctionArgs) => publicFileResponse(params.token);
