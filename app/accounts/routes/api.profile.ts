// Placeholder until built: profile JSON twins (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
