// Placeholder until built: sign-up of a trial workspace (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
