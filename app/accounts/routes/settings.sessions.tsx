// Placeholder until built: own sessions (item 4).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
