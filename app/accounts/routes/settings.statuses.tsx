// Placeholder until built: custom statuses (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
