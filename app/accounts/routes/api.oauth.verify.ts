// Placeholder until built: token sign-in (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
