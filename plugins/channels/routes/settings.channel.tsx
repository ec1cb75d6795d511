// Placeholder until the channel settings pages are built (issue 14).
export default function Placeholder() {
  return null;
}
