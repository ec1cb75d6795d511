// Placeholder until built: single sign-on start and callback (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
