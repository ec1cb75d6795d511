// Placeholder until built: own profile (item 3).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
