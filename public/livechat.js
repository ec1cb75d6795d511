/*
 * OmniDesk live chat for any website. Paste before </body>:
 *   <script src="https://YOUR-OMNIDESK-HOST/livechat.js" data-token="YOUR-LIVECHAT-KEY" async></script>
 * It adds a chat button; the button opens the live chat in a frame (/start/livechat/{key}).
 * Optional: data-label="Chat with us", data-position="left".
 */
(function () {
  var script = document.currentScript;
  if (!script || !script.getAttribute("data-token")) return;
  var origin = new URL(script.src).origin;
  var key = encodeURIComponent(script.getAttribute("data-token"));
  var side = script.getAttribute("data-position") === "left" ? "left" : "right";
  var label = script.getAttribute("data-label") || "Live Chat";

  var button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  button.setAttribute("aria-expanded", "false");
  button.style.cssText =
    "position:fixed;bottom:20px;" + side + ":20px;z-index:2147483000;padding:12px 18px;border:0;border-radius:24px;" +
    "background:#2563eb;color:#fff;font:600 15px system-ui,sans-serif;cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25)";

  var frame = null;
  function close() {
    if (frame) frame.remove();
    frame = null;
    button.setAttribute("aria-expanded", "false");
  }
  function open() {
    frame = document.createElement("iframe");
    // reopening goes back to the same chat (the page tells us its visit, see below)
    var visit = sessionStorage.getItem("omnidesk-livechat:" + key);
    frame.src = origin + (visit ? "/livechat/" + encodeURIComponent(visit) : "/start/livechat/" + key);
    frame.title = label;
    frame.allow = "autoplay";
    frame.style.cssText =
      "position:fixed;bottom:80px;" + side + ":20px;z-index:2147483000;width:min(380px,calc(100vw - 40px));" +
      "height:min(600px,calc(100vh - 100px));border:0;border-radius:12px;background:#fff;box-shadow:0 8px 30px rgba(0,0,0,.3)";
    document.body.appendChild(frame);
    button.setAttribute("aria-expanded", "true");
  }
  button.addEventListener("click", function () {
    frame ? close() : open();
  });
  // the chat page names its visit; its Close button asks to be closed
  window.addEventListener("message", function (event) {
    // only our own frame speaks to us
    if (event.origin !== origin || !frame || event.source !== frame.contentWindow || !event.data) return;
    if (event.data.type === "omnidesk:livechat:close") {
      sessionStorage.removeItem("omnidesk-livechat:" + key);
      close();
    }
    if (event.data.type === "omnidesk:livechat:visit") {
      if (event.data.token) sessionStorage.setItem("omnidesk-livechat:" + key, String(event.data.token));
      else sessionStorage.removeItem("omnidesk-livechat:" + key);
    }
  });
  document.body.appendChild(button);
})();
