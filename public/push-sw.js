// The service worker of browser push (app/conversation/push.server.ts): shows each push as a
// notification and opens its conversation (or /notifications) when clicked.
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(
    self.registration.showNotification(data.title || "OmniDesk", {
      body: data.body || "",
      tag: data.tag,
      icon: "/favicon.svg",
      data: { url: data.url || "/notifications" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data?.url || "/notifications", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((list) => {
      for (const client of list) if (client.url === url && "focus" in client) return client.focus();
      return self.clients.openWindow(url);
    }),
  );
});
