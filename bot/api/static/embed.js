// Puts the web chat on another site: a floating button that opens <bot origin>/chat in a
// panel (an iframe). Add to a page:
//   <script src="https://bot.example.org/chat/embed.js" async></script>
// Optional attributes on that script tag:
//   data-language="zh-hant|zh-hans|en"  the chat's first language (else the page's <html lang>)
//   data-label="..."                    the button's accessible name (else "Chat", then the
//                                       chat's title once it has been opened)
//   data-position="left"                the button on the bottom left (else bottom right)
// No inline <style>/<script> is added, so a strict Content-Security-Policy on the site is fine.
"use strict";

(() => {
  const script = document.currentScript;
  if (!script || !script.src || window.__ragbotChat) return;
  window.__ragbotChat = true;

  const origin = new URL(script.src, window.location.href).origin;
  const options = script.dataset;
  const side = options.position === "left" ? "left" : "right";
  const language = options.language || document.documentElement.lang || navigator.language || "";
  const chatUrl = new URL("/chat", origin);
  if (language) chatUrl.searchParams.set("lang", language);

  const button = document.createElement("button");
  const panel = document.createElement("div");
  let frame = null;
  const panelId = "ragbot-chat-panel";

  function styled(node, styles) {
    for (const [name, value] of Object.entries(styles)) node.style.setProperty(name, value);
    return node;
  }

  button.type = "button";
  button.textContent = "💬";
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-controls", panelId);
  button.setAttribute("aria-label", options.label || "Chat");
  button.title = options.label || "Chat";
  styled(button, {
    position: "fixed",
    bottom: "20px",
    [side]: "20px",
    "z-index": "2147483000",
    width: "56px",
    height: "56px",
    "border-radius": "50%",
    border: "0",
    background: "#0b5cad",
    color: "#fff",
    "font-size": "26px",
    "line-height": "56px",
    "text-align": "center",
    padding: "0",
    cursor: "pointer",
    "box-shadow": "0 4px 14px rgba(0, 0, 0, 0.25)",
  });

  panel.id = panelId;
  panel.hidden = true;
  styled(panel, {
    position: "fixed",
    bottom: "88px",
    [side]: "20px",
    "z-index": "2147483000",
    width: "min(400px, calc(100vw - 24px))",
    height: "min(640px, calc(100vh - 110px))",
    "border-radius": "12px",
    overflow: "hidden",
    background: "#fff",
    "box-shadow": "0 8px 30px rgba(0, 0, 0, 0.3)",
    display: "none",
  });
  if (window.matchMedia && window.matchMedia("(max-width: 480px)").matches) {
    styled(panel, { [side]: "12px", width: "calc(100vw - 24px)", bottom: "84px" });
  }

  function open() {
    if (!frame) {
      frame = document.createElement("iframe");
      frame.src = chatUrl.href;
      frame.title = options.label || "Chat";
      frame.referrerPolicy = "no-referrer";
      frame.allow = "microphone"; // the chat's 🎤 (a frame is refused the microphone otherwise)
      styled(frame, { width: "100%", height: "100%", border: "0", display: "block" });
      panel.append(frame);
    }
    panel.hidden = false;
    panel.style.setProperty("display", "block");
    button.setAttribute("aria-expanded", "true");
    button.textContent = "✕";
    frame.focus();
  }

  function close() {
    panel.hidden = true;
    panel.style.setProperty("display", "none");
    button.setAttribute("aria-expanded", "false");
    button.textContent = "💬";
    button.focus();
  }

  button.addEventListener("click", () => (panel.hidden ? open() : close()));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.hidden) close();
  });
  // Messages from the chat: close (Escape inside it) and its title in the chosen language.
  window.addEventListener("message", (event) => {
    if (event.origin !== origin || !frame || event.source !== frame.contentWindow) return;
    const data = event.data || {};
    if (data.type === "ragbot-chat:close" && !panel.hidden) close();
    if (data.type === "ragbot-chat:title" && typeof data.title === "string" && data.title) {
      const title = data.title.slice(0, 100);
      if (!options.label) {
        button.setAttribute("aria-label", title);
        button.title = title;
      }
      frame.title = title;
    }
  });

  function mount() {
    document.body.append(panel, button);
  }

  // A site the bot does not list may not frame the chat (the browser shows a broken frame):
  // said here, on the site's console, as the bot's log says it to the operator.
  async function checkEmbedding() {
    try {
      const response = await fetch(new URL("/chat/embed-check", origin).href, {
        credentials: "omit",
        cache: "no-store",
      });
      const body = response.ok ? await response.json() : null;
      if (body && body.allowed === false) {
        console.warn(
          `ragbot chat: ${window.location.origin} may not embed the chat from ${origin}:` +
            " add it to the bot's API_CORS_ORIGINS setting.",
        );
      }
    } catch {
      // the bot is unreachable: the chat says so itself once opened
    }
  }

  if (document.body) mount();
  else document.addEventListener("DOMContentLoaded", mount);
  checkEmbedding();
})();
