// Placeholder until built: the first-run setup page (item 1).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
