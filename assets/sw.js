// Muster's service worker: shows an alert the relay pushed (Web Push) while no tab of the
// page is open, and opens the server in the page when it is clicked. The message is the
// relay's JSON: title, body, tag (the delivery key: a repeat replaces, never doubles), url.
self.addEventListener("push", (event) => {
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch (e) {
    message = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(
    self.registration.showNotification(message.title || "Muster", {
      body: message.body || "",
      tag: message.tag,
      lang: message.lang || "",
      data: { url: message.url || "/" },
    })
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(self.clients.openWindow(event.notification.data.url || "/"));
});
