// Placeholder until built: the audit log (item 6).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
