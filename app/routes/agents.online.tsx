// /agents/online: who is online now, with their status (also the popup's data).
import type { LoaderFunctionArgs } from "@remix-run/node";
import { json } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { requireUser } from "~/context.server";
import { OnlineList } from "~/components/OnlineAgents";
import { onlineAgents } from "~/accounts/users.server";
import { pageMeta } from "~/meta";

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return json({ agents: await onlineAgents() });
}

export const meta = pageMeta("online.title");

export default function OnlineAgentsPage() {
  const { agents } = useLoaderData<typeof loader>();
  return <OnlineList agents={agents} heading />;
}
