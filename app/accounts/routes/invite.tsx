// Placeholder until built: accepting an invite: set a password (item 2).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
