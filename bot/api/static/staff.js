// The staff inbox: cases waiting for a person, their talk, a reply box and Close.
// The admin API key a staff member types is kept in this tab's sessionStorage only and
// sent as a bearer header; every text from the server is set with textContent.
(() => {
  "use strict";

  const KEY = "ragbot.staff.key";
  const POLL_MS = 3000;
  const state = { config: null, timer: null, shown: new Map() };
  const ui = {};

  function word(key, fields) {
    const words = (state.config && state.config.words) || {};
    let text = typeof words[key] === "string" ? words[key] : "";
    for (const [name, value] of Object.entries(fields || {})) {
      text = text.split(`{${name}}`).join(String(value));
    }
    return text;
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function storedKey() {
    try {
      return window.sessionStorage.getItem(KEY) || "";
    } catch {
      return "";
    }
  }

  function storeKey(value) {
    try {
      if (value) window.sessionStorage.setItem(KEY, value);
      else window.sessionStorage.removeItem(KEY);
    } catch {
      // storage off: the key lives as long as this page
    }
    state.key = value;
  }

  async function call(path, body) {
    const api = (state.config.api || "/api/v1").replace(/\/+$/, "");
    const init = {
      method: body === undefined ? "GET" : "POST",
      headers: { Authorization: `Bearer ${state.key}`, Accept: "application/json" },
      credentials: "omit",
      cache: "no-store",
    };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(`${api}/staff${path}`, init);
  }

  function signedIn(on) {
    ui.signIn.hidden = on;
    ui.signOut.hidden = !on;
    if (!on) {
      window.clearTimeout(state.timer);
      state.timer = null;
      ui.cases.replaceChildren();
      state.shown.clear();
    }
  }

  function refused() {
    storeKey("");
    signedIn(false);
    ui.notice.textContent = word("staffpage:refused");
  }

  async function refresh() {
    window.clearTimeout(state.timer);
    state.timer = null;
    if (!state.key) return;
    try {
      const response = await call("/cases");
      if (response.status === 401 || response.status === 403) {
        refused();
        return;
      }
      if (response.ok) {
        show(await response.json());
        ui.notice.textContent = state.shown.size ? "" : word("staffpage:empty");
      }
    } catch {
      // the network blinked: the next round asks again
    }
    state.timer = window.setTimeout(refresh, POLL_MS);
  }

  function show(cases) {
    const seen = new Set();
    for (const found of Array.isArray(cases) ? cases : []) {
      if (!found || typeof found !== "object") continue;
      const id = Number(found.id);
      if (!Number.isSafeInteger(id)) continue;
      seen.add(id);
      let shown = state.shown.get(id);
      if (!shown) {
        shown = caseItem(id, found);
        state.shown.set(id, shown);
        ui.cases.append(shown.item);
      }
      shown.status.textContent = found.claimed_by
        ? word("staffpage:claimed", { who: found.claimed_by })
        : "";
      const messages = Array.isArray(found.messages) ? found.messages : [];
      for (const message of messages.slice(shown.count)) shown.talk.append(talkItem(message));
      shown.count = Math.max(shown.count, messages.length);
    }
    for (const [id, shown] of state.shown) {
      if (seen.has(id)) continue;
      shown.item.remove();
      state.shown.delete(id);
    }
  }

  function caseItem(id, found) {
    const item = element("li", "case");
    item.dataset.case = String(id);
    const when = new Date(String(found.opened_at || ""));
    const heading = element(
      "h2",
      "case-heading",
      word("staffpage:case", {
        case: id,
        platform: found.platform || "",
        language: found.language || "",
        time: Number.isNaN(when.getTime()) ? "" : when.toLocaleString(),
      }),
    );
    const status = element("p", "case-status");
    const question = element("p", "case-question", found.question || "");
    const said = element("p", "case-answer");
    said.append(element("span", "talk-author", `${word("staffpage:bot_said")} `));
    said.append(String(found.answer || ""));
    const talk = element("ol", "talk");
    const form = element("form", "case-reply");
    const label = element("label", "talk-author", word("staffpage:reply"));
    const box = element("textarea", "reply-text");
    box.id = `reply-${id}`;
    box.maxLength = 4000;
    label.htmlFor = box.id;
    const send = element("button", "reply-send", word("staffpage:send"));
    send.type = "submit";
    const close = element("button", "secondary case-close", word("staffpage:close"));
    close.type = "button";
    const error = element("p", "case-error");
    error.setAttribute("role", "alert");
    form.append(label, box, send, close);
    item.append(heading, status, question, said, talk, form, error);
    const shown = { item, status, talk, count: 0, requestId: null };

    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const text = box.value.trim();
      if (!text) return;
      // one id per reply typed: a retry after a lost answer is relayed once
      shown.requestId = shown.requestId || newId();
      await act(send, error, `/cases/${id}/reply`, { text, request_id: shown.requestId }, () => {
        box.value = "";
        shown.requestId = null;
      });
    });
    close.addEventListener("click", () => act(close, error, `/cases/${id}/close`, {}, null));
    return shown;
  }

  async function act(button, error, path, body, done) {
    button.disabled = true;
    error.textContent = "";
    try {
      const response = await call(path, body);
      if (response.status === 401 || response.status === 403) {
        refused();
        return;
      }
      if (!response.ok) throw new Error(String(response.status));
      if (done) done();
      await refresh();
    } catch {
      error.textContent = word("staffpage:error");
    } finally {
      button.disabled = false;
    }
  }

  function talkItem(message) {
    const item = element("li", "talk-item");
    const fromAsker = message && message.direction === "to_staff";
    const who = fromAsker ? word("staffpage:asker") : `${word("staffpage:staff")} (${message.author || ""})`;
    item.append(element("span", "talk-author", `${who}: `));
    item.append(element("span", "talk-text", String((message && message.text) || "")));
    return item;
  }

  function newId() {
    const bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  async function start() {
    ui.signIn = document.getElementById("sign-in");
    ui.signOut = document.getElementById("sign-out");
    ui.key = document.getElementById("key");
    ui.notice = document.getElementById("notice");
    ui.cases = document.getElementById("cases");
    const response = await fetch("/staff/config.json", { credentials: "omit", cache: "no-store" });
    state.config = await response.json();
    const tags = { en: "en", "zh-hant": "zh-Hant", "zh-hans": "zh-Hans" };
    document.documentElement.lang = tags[state.config.language] || "en";
    for (const node of document.querySelectorAll("[data-word]")) {
      node.textContent = word(node.dataset.word);
    }
    document.title = word("staffpage:title");
    ui.signIn.addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = ui.key.value.trim();
      ui.key.value = "";
      if (!typed) return;
      storeKey(typed);
      ui.notice.textContent = "";
      signedIn(true);
      refresh();
    });
    ui.signOut.addEventListener("click", () => {
      storeKey("");
      ui.notice.textContent = "";
      signedIn(false);
    });
    storeKey(storedKey());
    signedIn(Boolean(state.key));
    if (state.key) refresh();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
