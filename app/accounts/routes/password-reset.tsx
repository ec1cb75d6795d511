// Placeholder until built: password reset request and link (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
