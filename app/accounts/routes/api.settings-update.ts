// Placeholder until built: settings JSON twins (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
