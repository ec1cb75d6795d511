// Placeholder until built: user management (item 2).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
