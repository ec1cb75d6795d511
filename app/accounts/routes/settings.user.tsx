// Placeholder until built: one user's edit page (item 2).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
