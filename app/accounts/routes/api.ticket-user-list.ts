// Placeholder until built: a user's tickets, JSON (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
