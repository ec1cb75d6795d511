// Placeholder until built: single sign-on providers (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
