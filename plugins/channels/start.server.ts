// The channel layer's background work: the inbound and outbound job kinds and each enabled
// account's watcher (IMAP polling, Graph delta). Built in issue 14.
export async function start() {
  return async () => {};
}
