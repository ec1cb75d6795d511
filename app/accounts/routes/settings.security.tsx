// Placeholder until built: workspace security settings (item 4).
export function loader() {
  throw new Response("Not Found", { status: 404 });
}
