// The web chat: asks the bot's HTTP API and shows its streamed answers.
// Plain ES2020, no dependencies. Server text is only ever set as textContent,
// and only http(s) URLs become links.
"use strict";

(() => {
  const LANGUAGES = ["zh-hant", "zh-hans", "en"];
  const HTML_LANG = { "zh-hant": "zh-Hant", "zh-hans": "zh-Hans", en: "en" };
  const CONFIG_URL = "/chat/config.json";
  const LANGUAGE_KEY = "ragbot-chat:language";
  const CONVERSATION_KEY = "ragbot-chat:conversation";
  const ANSWER_TIMEOUT_MS = 180000;
  // the outcomes of a real answer from the documents: only these are voted on (small talk,
  // refusals, blocked questions and stopped answers are not)
  const VOTED = ["answered", "memory", "forms"];
  // Used only when the words cannot be loaded from the server.
  const FALLBACK = {
    "webchat:title": "Chat",
    "webchat:send": "Send",
    "webchat:error": "Sorry, something went wrong. Please try again.",
    "webchat:offline": "Cannot reach the server. Your question is kept; retry.",
    "webchat:retry": "Retry",
  };

  const embedded = window.parent !== window; // in embed.js's iframe
  const $ = (selector) => document.querySelector(selector);
  const ui = {
    language: $("#language"),
    messages: $("#messages"),
    form: $("#ask"),
    question: $("#question"),
    send: $("#send"),
    stop: $("#stop"),
    newConversation: $("#new-conversation"),
    suggestions: $("#suggestions"),
    suggestionList: $("#suggestion-list"),
    offline: $("#offline"),
    retry: $("#retry"),
    logo: $("#logo"),
    intro: $("#intro"),
  };
  const state = {
    config: null,
    language: "en",
    conversationId: null,
    busy: false,
    // the answer being written: its AbortController, and whether the reader pressed Stop
    streaming: null,
    // what Retry does once the server answers again (null: nothing failed)
    retry: null,
    // a hand-off in progress: the last staff message seen, and the polling timer
    mailbox: { after: 0, timer: null, backShown: false, withStaff: false },
  };
  const MAILBOX_POLL_MS = 3000;

  // Storage may be blocked (a third-party iframe, private mode): then nothing is remembered.
  function remembered(storage, key) {
    try {
      return window[storage].getItem(key);
    } catch {
      return null;
    }
  }

  function remember(storage, key, value) {
    try {
      if (value === null || value === undefined) window[storage].removeItem(key);
      else window[storage].setItem(key, value);
    } catch {
      // not remembered
    }
  }

  function languageOf(tag) {
    const lower = String(tag || "").toLowerCase();
    if (LANGUAGES.includes(lower)) return lower;
    if (!lower.startsWith("zh")) return lower ? "en" : null;
    if (/^zh-(hant|tw|hk|mo)\b/.test(lower) || /-hant\b/.test(lower)) return "zh-hant";
    return "zh-hans";
  }

  function initialLanguage() {
    const saved = remembered("localStorage", LANGUAGE_KEY);
    if (LANGUAGES.includes(saved)) return saved;
    const asked = new URLSearchParams(window.location.search).get("lang");
    if (asked) return languageOf(asked) || "en";
    const browser = (navigator.languages && navigator.languages[0]) || navigator.language;
    return languageOf(browser) || "en";
  }

  function word(key) {
    const theme = (state.config && state.config.theme) || {};
    if (key === "webchat:title" && typeof theme.title === "string" && theme.title) {
      return theme.title;
    }
    if (key === "webchat:intro" && typeof theme.greeting === "string" && theme.greeting) {
      return theme.greeting;
    }
    const words = (state.config && state.config.words) || {};
    const own = words[state.language] || {};
    const english = words.en || {};
    return own[key] || english[key] || FALLBACK[key] || "";
  }

  function pageWord(page) {
    const text = word("webchat:page");
    if (!text) return `p. ${page}`;
    return text.includes("{page}") ? text.replace("{page}", String(page)) : `${text} ${page}`;
  }

  // Every element marked with data-word / data-placeholder-word / data-aria-word shows its
  // word in the current language, so switching the language changes them all at once.
  function showWords() {
    document.documentElement.lang = HTML_LANG[state.language] || "en";
    document.title = word("webchat:title");
    for (const element of document.querySelectorAll("[data-word]")) {
      element.textContent = word(element.dataset.word);
    }
    for (const element of document.querySelectorAll("[data-placeholder-word]")) {
      element.placeholder = word(element.dataset.placeholderWord);
    }
    for (const element of document.querySelectorAll("[data-aria-word]")) {
      element.setAttribute("aria-label", word(element.dataset.ariaWord));
    }
    for (const element of document.querySelectorAll("[data-title-word]")) {
      element.title = word(element.dataset.titleWord);
    }
    if (embedded) {
      window.parent.postMessage({ type: "ragbot-chat:title", title: document.title }, "*");
    }
  }

  function setLanguage(language) {
    state.language = LANGUAGES.includes(language) ? language : "en";
    ui.language.value = state.language;
    showWords();
    showSuggestions();
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function worded(tag, className, key) {
    const node = element(tag, className, word(key));
    node.dataset.word = key;
    return node;
  }

  function safeUrl(value) {
    if (typeof value !== "string" || !value) return null;
    try {
      const url = new URL(value, window.location.href);
      return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
    } catch {
      return null;
    }
  }

  function link(url, text, className) {
    const anchor = element("a", className, text);
    anchor.href = url;
    anchor.target = "_blank";
    anchor.rel = "noopener noreferrer";
    return anchor;
  }

  // Text with **emphasis** as <strong> and its http(s) URLs, bare or as [label](url), as
  // links. Built from text nodes and elements only: nothing is ever parsed as HTML, and a
  // URL of another scheme (javascript:, data:) stays plain text.
  function fillText(node, value) {
    node.replaceChildren();
    const parts = String(value).split(/\*\*(?=\S)([^*\n]*?\S)\*\*/);
    parts.forEach((part, index) => {
      if (index % 2 === 0) {
        appendLinked(node, part);
        return;
      }
      const strong = element("strong", "answer-strong");
      appendLinked(strong, part);
      node.append(strong);
    });
  }

  function appendLinked(node, text) {
    const pattern = /\[([^\]\n]+)\]\((https?:\/\/[^\s()<>]+)\)|https?:\/\/[^\s<>"'）」】]+/g;
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      if (match[1] !== undefined) {
        const labelled = safeUrl(match[2]);
        if (!labelled) continue;
        node.append(text.slice(last, match.index), link(labelled, match[1]));
        last = match.index + match[0].length;
        continue;
      }
      let found = match[0];
      const trailing = found.match(/[.,;:!?。，；：！？)\]]+$/);
      if (trailing) found = found.slice(0, -trailing[0].length);
      const url = safeUrl(found);
      if (!url) continue;
      node.append(text.slice(last, match.index), link(url, found));
      last = match.index + found.length;
    }
    node.append(text.slice(last));
  }

  // An answer's lines: a run of list items ("- " lines, as answers write them) becomes a
  // <ul>, the other lines paragraphs (a blank line ends one). Built from text nodes only.
  function fillAnswer(node, value) {
    node.replaceChildren();
    let list = null;
    let lines = [];
    const paragraph = () => {
      if (!lines.length) return;
      const shown = element("p", "answer-paragraph");
      fillText(shown, lines.join("\n"));
      node.append(shown);
      lines = [];
    };
    for (const line of String(value).split("\n")) {
      const item = line.match(/^-[ \t]+(.*)$/);
      if (item) {
        paragraph();
        if (!list) node.append((list = element("ul", "answer-list")));
        const shown = element("li", "answer-item");
        fillText(shown, item[1]);
        list.append(shown);
      } else if (!line.trim()) {
        paragraph();
        list = null;
      } else {
        list = null;
        lines.push(line);
      }
    }
    paragraph();
  }

  function scrollDown() {
    ui.messages.scrollTop = ui.messages.scrollHeight;
  }

  function addQuestion(text) {
    const item = element("li", "question");
    item.append(element("p", "question-text", text));
    ui.messages.append(item);
    scrollDown();
    return item;
  }

  function addAnswer() {
    const item = element("li", "answer");
    item.setAttribute("aria-busy", "true");
    const status = worded("p", "answer-status", "webchat:thinking");
    const text = element("div", "answer-text");
    item.append(status, text);
    ui.messages.append(item);
    scrollDown();
    return { item, status, text, streamed: "" };
  }

  function showError(answer, message) {
    answer.item.classList.add("failed");
    answer.status.remove();
    const text = message || word("webchat:error");
    const shown = element("p", "answer-error", text);
    shown.setAttribute("role", "alert");
    answer.text.replaceChildren(shown);
    answer.item.removeAttribute("aria-busy");
    scrollDown();
  }

  async function readJson(response) {
    try {
      return await response.json();
    } catch {
      return null;
    }
  }

  async function post(path, body, signal) {
    const api = (state.config.api || "/api/v1").replace(/\/+$/, "");
    return fetch(`${api}${path}`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${state.config.key}`,
        "Content-Type": "application/json",
        Accept: path.endsWith("/stream") ? "text/event-stream" : "application/json",
      },
      body: JSON.stringify(body),
      signal,
      credentials: "omit",
      cache: "no-store",
    });
  }

  function failureMessage(body) {
    return body && typeof body.message === "string" && body.message ? body.message : null;
  }

  // Server-sent events from a fetch response: yields {type, data} with data parsed as JSON.
  async function* events(response) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value || new Uint8Array(0), { stream: !done });
      // Line ends may be \r\n, \n or \r; a \r at the very end may be half of a \r\n.
      buffer = done ? buffer.replace(/\r\n?/g, "\n") : buffer.replace(/\r\n|\r(?!$)/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseEvent(block);
        if (event) yield event;
      }
      if (done) {
        const event = parseEvent(buffer);
        if (event) yield event;
        return;
      }
    }
  }

  function parseEvent(block) {
    let type = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") type = value;
      else if (field === "data") data.push(value);
    }
    if (!data.length) return null;
    try {
      return { type, data: JSON.parse(data.join("\n")) };
    } catch {
      return null;
    }
  }

  function setConversation(id) {
    state.conversationId = typeof id === "string" && id ? id : null;
    remember("sessionStorage", CONVERSATION_KEY, state.conversationId);
  }

  async function ask(question) {
    state.busy = true;
    hideOffline();
    const asked = addQuestion(question);
    showSuggestions();
    const answer = addAnswer();
    const controller = new AbortController();
    const streaming = { controller, stopped: false };
    state.streaming = streaming;
    showStop(true);
    const timer = window.setTimeout(() => controller.abort(), ANSWER_TIMEOUT_MS);
    const body = { question, language: state.language };
    if (state.conversationId) body.conversation_id = state.conversationId;
    let finished = false;
    try {
      const response = await post("/ask/stream", body, controller.signal);
      if (!response.ok || !response.body) {
        showError(answer, failureMessage(await readJson(response)));
        return;
      }
      for await (const { type, data } of events(response)) {
        if (showEvent(answer, type, data)) {
          finished = true;
          break;
        }
      }
      if (!finished) showError(answer, null);
    } catch (error) {
      if (streaming.stopped) showStopped(answer);
      else if (error && error.name === "AbortError") showError(answer, null); // timed out
      else unreachable(question, asked, answer);
    } finally {
      window.clearTimeout(timer);
      state.busy = false;
      state.streaming = null;
      showStop(false);
    }
  }

  // Stop: the stream is closed (the server stops the turn), what was written stays.
  function stop() {
    if (!state.streaming) return;
    state.streaming.stopped = true;
    state.streaming.controller.abort();
  }

  function showStop(on) {
    ui.stop.hidden = !on;
    ui.send.hidden = on;
    ui.send.disabled = on || !state.config;
    if (!on && document.activeElement === document.body) ui.question.focus();
  }

  function showStopped(answer) {
    answer.status.remove();
    answer.item.removeAttribute("aria-busy");
    answer.item.classList.add("stopped");
    fillAnswer(answer.text, answer.streamed);
    answer.item.append(worded("p", "answer-stopped", "webchat:stopped"));
    scrollDown();
  }

  // The server could not be reached (offline, or down): the question goes back into the
  // box, not lost, and Retry sends it once the server answers again.
  function unreachable(question, asked, answer) {
    asked.remove();
    answer.item.remove();
    if (!ui.question.value.trim()) {
      ui.question.value = question;
      fitQuestion();
    }
    showSuggestions();
    showOffline(submit);
  }

  function showOffline(retry) {
    state.retry = retry;
    ui.offline.hidden = false;
  }

  function hideOffline() {
    state.retry = null;
    ui.offline.hidden = true;
  }

  function retry() {
    const again = state.retry || submit;
    hideOffline();
    again();
  }

  // The suggested questions show on an empty chat only, in the page's language.
  function showSuggestions() {
    const all = (state.config && state.config.suggestions) || {};
    const questions = Array.isArray(all[state.language]) ? all[state.language] : [];
    const empty = !ui.messages.childElementCount && !state.conversationId;
    ui.suggestionList.replaceChildren();
    for (const question of questions) {
      if (typeof question !== "string" || !question) continue;
      ui.suggestionList.append(suggestionItem(question));
    }
    ui.suggestions.hidden = !(empty && ui.suggestionList.childElementCount);
  }

  // A question as a list item holding a button that asks it.
  function suggestionItem(question) {
    const item = element("li", "suggestion-item");
    const button = element("button", "suggestion", question);
    button.type = "button";
    button.addEventListener("click", () => {
      if (state.busy || !state.config) return;
      ask(question);
    });
    item.append(button);
    return item;
  }

  // After a reload: the conversation's questions and answers, from the server.
  async function loadHistory() {
    if (!state.conversationId) return;
    const id = encodeURIComponent(state.conversationId);
    let body = null;
    state.busy = true; // a question asked meanwhile would be wiped by the history shown
    try {
      const response = await get(`/conversations/${id}/history`);
      if (response.status === 404 || response.status === 422) {
        setConversation(null); // gone (kept no longer, or never this key's)
        showSuggestions();
        return;
      }
      body = response.ok ? await readJson(response) : null;
    } catch {
      showOffline(loadHistory);
      return;
    } finally {
      state.busy = false;
    }
    if (!body || !Array.isArray(body.messages)) return;
    ui.messages.replaceChildren();
    for (const message of body.messages) {
      if (!message || typeof message.text !== "string") continue;
      if (message.role === "user") {
        addQuestion(message.text);
        continue;
      }
      const answer = addAnswer();
      finish(answer, {
        answer: message.text,
        citations: message.citations,
        answer_id: message.answer_id,
        outcome: message.outcome,
        language: message.language,
        conversation_id: state.conversationId,
      });
    }
    scrollDown();
    // the staff's replies are kept in the mailbox, not the history: shown again, and
    // collected on while a person still has the conversation
    if (state.config.handoff) await collect();
  }

  function finish(answer, done) {
    if (done.conversation_id) setConversation(done.conversation_id);
    answer.status.remove();
    answer.item.removeAttribute("aria-busy");
    if (typeof done.language === "string" && HTML_LANG[done.language]) {
      answer.item.lang = HTML_LANG[done.language];
    }
    if (done.outcome) answer.item.dataset.outcome = String(done.outcome);
    // the finished answer replaces what was streamed, its list items as a list
    const text = typeof done.answer === "string" && done.answer ? done.answer : answer.streamed;
    const related = Array.isArray(done.related_questions)
      ? done.related_questions.filter((q) => typeof q === "string" && q)
      : [];
    // a refusal's FAQ questions (a paragraph of its text): shown as buttons that ask them
    const block = related.length ? relatedBlock(text, related) : null;
    fillAnswer(answer.text, block ? block.rest : text);
    if (block) answer.text.after(relatedList(block.intro, related));
    if (done.outcome === "refused") {
      const contact = contactLine(done.language);
      if (contact) answer.text.after(contact);
    }

    const citations = Array.isArray(done.citations) ? done.citations : done.sources;
    if (Array.isArray(citations) && citations.length) {
      answer.item.append(sources(citations, answer.text));
    }
    if (Array.isArray(done.forms) && done.forms.length) {
      const shown = forms(done.forms);
      if (shown) answer.item.append(shown);
    }
    const ids = { answer_id: done.answer_id, conversation_id: done.conversation_id || null };
    const actions = element("div", "answer-actions");
    // votes under an answer from the documents only, not under small talk or a refusal
    const voted = VOTED.includes(done.outcome);
    if (voted && done.answer_id !== null && done.answer_id !== undefined) {
      actions.append(votes(ids));
    }
    if (state.config.handoff && done.handoff) actions.append(handoff(ids));
    if (done.outcome === "with_staff") polling(true); // the message went to the staff
    if (actions.childElementCount) answer.item.append(actions);
    scrollDown();
  }

  // Where a citation opens: the document's own page, else its signed source view (a
  // relative link to this server; the view marks the cited passage).
  function sourceUrl(citation) {
    return safeUrl(citation.url) || safeUrl(citation.source_url);
  }

  // The cited documents, each a link with its quoted passage in a disclosure (reachable
  // by keyboard and touch, not a hover title); each [n] in `answerText` links to its source.
  function sources(citations, answerText) {
    const section = element("section", "sources");
    const heading = worded("h2", "sources-heading", "webchat:sources");
    const list = element("ol", "sources-list");
    const links = new Map();
    for (const citation of citations) {
      if (!citation || typeof citation !== "object") continue;
      // the title in the reader's script when the server gives it (the stored one else)
      let label = String(citation.title || citation.document || "");
      if (citation.page !== null && citation.page !== undefined && citation.page !== "") {
        label += ` (${pageWord(citation.page)})`;
      }
      const item = element("li", "source");
      if (citation.n !== null && citation.n !== undefined) item.dataset.n = String(citation.n);
      const url = sourceUrl(citation);
      item.append(url ? link(url, label, "source-link") : element("span", "source-title", label));
      if (url && citation.n !== null && citation.n !== undefined) {
        links.set(String(citation.n), { url, label });
      }
      if (typeof citation.passage === "string" && citation.passage) {
        const passage = element("details", "source-passage");
        passage.append(
          worded("summary", "source-passage-toggle", "webchat:passage"),
          element("blockquote", "source-passage-text", citation.passage),
        );
        item.append(passage);
      }
      list.append(item);
    }
    section.append(heading, list);
    if (answerText && links.size) linkMarkers(answerText, links);
    return section;
  }

  // Each "[n]" in the answer's text nodes (outside links) becomes a link to source n.
  function linkMarkers(root, links) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const inLink = node.parentElement && node.parentElement.closest("a");
      if (!inLink && /\[\d+\]/.test(node.nodeValue)) found.push(node);
    }
    for (const node of found) {
      const text = node.nodeValue;
      const pieces = [];
      let last = 0;
      for (const match of text.matchAll(/\[(\d+)\]/g)) {
        const source = links.get(match[1]);
        if (!source) continue;
        pieces.push(text.slice(last, match.index));
        const anchor = link(source.url, match[0], "citation-link");
        anchor.title = source.label;
        pieces.push(anchor);
        last = match.index + match[0].length;
      }
      if (!pieces.length) continue;
      pieces.push(text.slice(last));
      node.replaceWith(...pieces);
    }
  }

  // The answer's paragraph listing the questions (its intro line, then a "- " line per
  // question, in order): the intro and the answer's other paragraphs (a hand-off line
  // may follow the list); null when no paragraph lists them so.
  function relatedBlock(text, questions) {
    const paragraphs = text.split("\n\n");
    const at = paragraphs.findIndex((paragraph) => {
      const listed = paragraph.split("\n").slice(1).map((line) => line.replace(/^- /, ""));
      return listed.length === questions.length && listed.every((q, i) => q === questions[i]);
    });
    if (at < 0) return null;
    const rest = paragraphs.filter((_, i) => i !== at).join("\n\n");
    return { rest, intro: paragraphs[at].split("\n")[0] };
  }

  function relatedList(intro, questions) {
    const section = element("section", "related");
    const list = element("ul", "suggestion-list related-list");
    for (const question of questions) list.append(suggestionItem(question));
    section.append(element("p", "related-intro", intro), list);
    return section;
  }

  function forms(all) {
    const list = element("ul", "forms-list");
    for (const form of all) {
      if (!form || typeof form !== "object" || !form.name) continue;
      const url = safeUrl(form.url);
      const item = element("li", "form");
      item.append(url ? link(url, form.name, "form-link") : element("span", "form-name", form.name));
      list.append(item);
    }
    if (!list.childElementCount) return null;
    const section = element("section", "forms");
    section.append(worded("h2", "forms-heading", "webchat:forms"), list);
    return section;
  }

  function votes(ids) {
    const group = element("div", "votes");
    group.setAttribute("role", "group");
    const up = voteButton("vote-up", "👍", "webchat:helpful");
    const down = voteButton("vote-down", "👎", "webchat:not_helpful");
    const thanks = element("span", "vote-status");
    thanks.setAttribute("role", "status");
    group.append(up, down, thanks);
    const vote = async (helpful) => {
      const pressed = helpful ? up : down;
      const other = helpful ? down : up;
      up.disabled = down.disabled = true;
      try {
        const response = await post("/feedback", { ...ids, helpful });
        const body = await readJson(response);
        if (!response.ok) throw new Error(failureMessage(body) || "");
        pressed.setAttribute("aria-pressed", "true");
        other.setAttribute("aria-pressed", "false");
        thanks.replaceChildren(worded("span", "vote-thanks", "webchat:thanks"));
      } catch (error) {
        const message = (error && error.message) || word("webchat:error");
        thanks.replaceChildren(element("span", "vote-error", message));
      } finally {
        up.disabled = down.disabled = false;
      }
    };
    up.addEventListener("click", () => vote(true));
    down.addEventListener("click", () => vote(false));
    return group;
  }

  function voteButton(className, emoji, key) {
    const button = element("button", `vote ${className}`);
    button.type = "button";
    button.setAttribute("aria-pressed", "false");
    const icon = element("span", "vote-icon", emoji);
    icon.setAttribute("aria-hidden", "true");
    button.append(icon, worded("span", "vote-label", key));
    return button;
  }

  // --- a refusal's contact (HANDOFF_CONTACT*): its web address, mail and phone clickable ---

  const CONTACT_PARTS =
    /(https?:\/\/[^\s<>"'）」】]+)|([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})|((?<![\d:])\+?\d[\d ()-]{2,}\d(?![\d:]))/g;

  function contactLine(language) {
    const contacts = (state.config && state.config.contacts) || {};
    const contact = contacts[LANGUAGES.includes(language) ? language : state.language];
    if (typeof contact !== "string" || !contact) return null;
    const line = element("p", "refusal-contact");
    line.append(worded("span", "refusal-contact-label", "webchat:contact"), " ");
    let last = 0;
    for (const match of contact.matchAll(CONTACT_PARTS)) {
      let found = match[0];
      let href = null;
      if (match[1]) {
        const trailing = found.match(/[.,;:!?。，；：！？)\]]+$/);
        if (trailing) found = found.slice(0, -trailing[0].length);
        href = safeUrl(found);
      } else if (match[2]) {
        href = `mailto:${found}`;
      } else {
        href = `tel:${found.replace(/[^\d+]/g, "")}`;
      }
      if (!href) continue;
      const anchor = element("a", "contact-link", found);
      anchor.href = href;
      if (match[1]) {
        anchor.target = "_blank";
        anchor.rel = "noopener noreferrer";
      }
      line.append(contact.slice(last, match.index), anchor);
      last = match.index + found.length;
    }
    line.append(contact.slice(last));
    return line;
  }

  function handoff(ids) {
    const box = element("div", "handoff-box");
    const button = worded("button", "handoff", "webchat:handoff");
    button.type = "button";
    const said = element("p", "handoff-message");
    said.setAttribute("role", "status");
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const response = await post("/handoff", { ...ids, language: state.language });
        const body = await readJson(response);
        if (!response.ok) throw new Error(failureMessage(body) || "");
        button.remove();
        takeMail(body);
      } catch (error) {
        said.textContent = (error && error.message) || word("webchat:error");
        button.disabled = false;
      }
    });
    box.append(button, said);
    return box;
  }

  // --- hand-off: the staff's replies are collected from the conversation's mailbox ---

  async function get(path) {
    const api = (state.config.api || "/api/v1").replace(/\/+$/, "");
    return fetch(`${api}${path}`, {
      headers: { Authorization: `Bearer ${state.config.key}`, Accept: "application/json" },
      credentials: "omit",
      cache: "no-store",
    });
  }

  function takeMail(body) {
    if (!body || typeof body !== "object") return;
    for (const message of Array.isArray(body.messages) ? body.messages : []) {
      if (!message || typeof message !== "object") continue;
      const id = Number(message.id);
      if (!Number.isFinite(id) || id <= state.mailbox.after) continue;
      state.mailbox.after = id;
      const item = element("li", "staff-message");
      const text = element("div", "staff-text");
      fillText(text, String(message.text || ""));
      item.append(text);
      if (message.back && !state.mailbox.backShown) {
        state.mailbox.backShown = true;
        item.append(backButton());
      }
      ui.messages.append(item);
    }
    scrollDown();
    state.mailbox.withStaff = Boolean(body.with_staff);
    if (body.with_staff) {
      polling(true);
    } else {
      polling(false);
      for (const old of ui.messages.querySelectorAll(".handoff-back")) old.remove();
      state.mailbox.backShown = false;
    }
  }

  function polling(on) {
    if (!on) {
      window.clearTimeout(state.mailbox.timer);
      state.mailbox.timer = null;
      return;
    }
    if (state.mailbox.timer !== null) return;
    state.mailbox.timer = window.setTimeout(async () => {
      state.mailbox.timer = null;
      await collect();
    }, MAILBOX_POLL_MS);
  }

  async function collect() {
    if (!state.conversationId) return;
    const id = encodeURIComponent(state.conversationId);
    try {
      const response = await get(`/conversations/${id}/messages?after=${state.mailbox.after}`);
      if (response.ok) {
        takeMail(await readJson(response));
        return;
      }
    } catch {
      // the network blinked: try again at the next tick
    }
    polling(true);
  }

  function backButton() {
    const button = worded("button", "handoff-back", "webchat:back");
    button.type = "button";
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const body = { conversation_id: state.conversationId, language: state.language };
        const response = await post("/handoff/close", body);
        const answer = await readJson(response);
        if (!response.ok && response.status !== 404) throw new Error(failureMessage(answer) || "");
        polling(false);
        takeMail(answer && response.ok ? answer : { messages: [], with_staff: false });
      } catch {
        button.disabled = false;
      }
    });
    return button;
  }

  function submit() {
    const question = ui.question.value.trim();
    if (!question || state.busy || !state.config) return;
    ui.question.value = "";
    fitQuestion();
    ask(question);
  }

  function fitQuestion() {
    ui.question.style.height = "auto";
    ui.question.style.height = `${Math.min(ui.question.scrollHeight, 160)}px`;
  }

  function startOver() {
    stop();
    polling(false);
    if (state.mailbox.withStaff && state.conversationId) {
      // a person has this conversation: it is closed, not left open for nobody to read
      const body = { conversation_id: state.conversationId, language: state.language };
      post("/handoff/close", body).catch(() => {});
    }
    state.mailbox = { after: 0, timer: null, backShown: false, withStaff: false };
    setConversation(null);
    ui.messages.replaceChildren();
    showSuggestions();
    ui.question.focus();
  }

  function bind() {
    ui.form.addEventListener("submit", (event) => {
      event.preventDefault();
      submit();
    });
    ui.question.addEventListener("keydown", (event) => {
      // Enter sends; Shift+Enter is a new line; Enter while an IME composes is not a send.
      if (event.key !== "Enter" || event.shiftKey || event.isComposing || event.keyCode === 229) {
        return;
      }
      event.preventDefault();
      submit();
    });
    ui.question.addEventListener("input", fitQuestion);
    ui.language.addEventListener("change", () => {
      setLanguage(ui.language.value);
      remember("localStorage", LANGUAGE_KEY, state.language);
    });
    ui.newConversation.addEventListener("click", startOver);
    ui.stop.addEventListener("click", stop);
    ui.retry.addEventListener("click", retry);
    // the browser says the network is gone: said at once, not at the next question
    window.addEventListener("offline", () => showOffline(state.retry || submit));
    // Embedded (embed.js): Escape asks the host page to close the chat.
    if (embedded) {
      document.addEventListener("keydown", (event) => {
        if (event.key === "Escape") window.parent.postMessage({ type: "ragbot-chat:close" }, "*");
      });
    }
  }

  async function start() {
    bind();
    setLanguage(initialLanguage());
    setConversation(remembered("sessionStorage", CONVERSATION_KEY));
    await loadConfig();
  }

  async function loadConfig() {
    let response;
    try {
      response = await fetch(CONFIG_URL, { credentials: "omit", cache: "no-store" });
    } catch {
      showWords();
      showOffline(loadConfig); // the server is unreachable: Retry loads the page's config
      return;
    }
    try {
      if (!response.ok) throw new Error(String(response.status));
      const config = await response.json();
      if (!config || typeof config.key !== "string") throw new Error("no key");
      state.config = config;
    } catch {
      showWords();
      const failed = element("li", "answer failed");
      failed.append(element("p", "answer-error", word("webchat:error")));
      ui.messages.append(failed);
      return;
    }
    applyTheme(state.config.theme);
    setUpMedia();
    showWords();
    showSuggestions();
    ui.question.disabled = false;
    ui.send.disabled = false;
    document.body.classList.add("ready");
    ui.question.focus({ preventScroll: true });
    await loadHistory();
  }

  // --- A photo (📎) or a recording (🎤) as the question: /ask/media/stream --------------

  const media = { ready: false, recorder: null, started: 0, timer: null };

  // The buttons show when the server takes what they send (config.json's `media`): the
  // microphone only with a transcription endpoint and a browser that can record.
  function setUpMedia() {
    const allowed = state.config.media || {};
    const photo = $("#photo");
    const mic = $("#mic");
    const file = $("#photo-file");
    if (media.ready || !photo || !mic || !file) return;
    media.ready = true;
    photo.hidden = !allowed.photo;
    mic.hidden = !(allowed.voice && canRecord());
    photo.addEventListener("click", () => {
      if (!state.busy) file.click();
    });
    file.addEventListener("change", () => {
      const chosen = file.files && file.files[0];
      file.value = ""; // the same photo chosen again is sent again
      if (chosen) askMedia(chosen, "photo", chosen.name || "photo", null);
    });
    mic.addEventListener("click", toggleRecording);
  }

  function canRecord() {
    const devices = navigator.mediaDevices;
    return typeof window.MediaRecorder === "function" && !!devices && !!devices.getUserMedia;
  }

  // First press: record (the browser asks for the microphone); second press, or the
  // server's length limit reached: stop and send.
  async function toggleRecording() {
    if (media.recorder) {
      if (media.recorder.state !== "inactive") media.recorder.stop();
      return;
    }
    if (state.busy) return;
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      showError(addAnswer(), word("webchat:no_microphone"));
      return;
    }
    const recorder = new MediaRecorder(stream);
    const chunks = [];
    recorder.addEventListener("dataavailable", (event) => {
      if (event.data && event.data.size) chunks.push(event.data);
    });
    recorder.addEventListener("stop", () => {
      for (const track of stream.getTracks()) track.stop();
      window.clearTimeout(media.timer);
      const seconds = Math.max(1, Math.ceil((Date.now() - media.started) / 1000));
      media.recorder = null;
      showRecording(false);
      const type = (recorder.mimeType || "audio/webm").split(";")[0];
      const recording = new Blob(chunks, { type });
      if (recording.size) askMedia(recording, "voice", `voice.${audioExtension(type)}`, seconds);
    });
    media.recorder = recorder;
    media.started = Date.now();
    recorder.start();
    showRecording(true);
    const limit = Number((state.config.media || {}).voice_max_seconds) || 0;
    if (limit > 0) {
      media.timer = window.setTimeout(() => {
        if (recorder.state !== "inactive") recorder.stop();
      }, limit * 1000);
    }
  }

  function audioExtension(type) {
    if (type.includes("ogg")) return "ogg";
    if (type.includes("mp4") || type.includes("aac")) return "m4a";
    return "webm";
  }

  function showRecording(on) {
    const mic = $("#mic");
    const key = on ? "webchat:recording" : "webchat:voice";
    mic.classList.toggle("recording", on);
    mic.setAttribute("aria-pressed", on ? "true" : "false");
    mic.dataset.ariaWord = key;
    mic.dataset.titleWord = key;
    mic.setAttribute("aria-label", word(key));
    mic.title = word(key);
  }

  // A size the reader reads: "20 MB".
  function megabytes(size) {
    return `${Math.round((size / 1048576) * 10) / 10} MB`;
  }

  async function askMedia(file, kind, name, seconds) {
    if (state.busy || !state.config) return;
    const allowed = state.config.media || {};
    const limit = Number(kind === "photo" ? allowed.photo_max_bytes : allowed.voice_max_bytes);
    const asked = addQuestion(word(kind === "photo" ? "webchat:photo_sent" : "webchat:voice_sent"));
    asked.classList.add("media-question");
    showSuggestions();
    const answer = addAnswer();
    if (limit > 0 && file.size > limit) {
      showError(answer, `${word("webchat:too_large")} (${megabytes(limit)})`);
      return;
    }
    state.busy = true;
    hideOffline();
    const controller = new AbortController();
    const streaming = { controller, stopped: false };
    state.streaming = streaming;
    showStop(true);
    const timer = window.setTimeout(() => controller.abort(), ANSWER_TIMEOUT_MS);
    const form = new FormData();
    form.append("file", file, name);
    form.append("kind", kind);
    form.append("language", state.language);
    if (state.conversationId) form.append("conversation_id", state.conversationId);
    if (seconds !== null) form.append("seconds", String(seconds));
    try {
      const api = (state.config.api || "/api/v1").replace(/\/+$/, "");
      const response = await fetch(`${api}/ask/media/stream`, {
        method: "POST",
        headers: { Authorization: `Bearer ${state.config.key}`, Accept: "text/event-stream" },
        body: form,
        signal: controller.signal,
        credentials: "omit",
        cache: "no-store",
      });
      if (!response.ok || !response.body) {
        showError(answer, failureMessage(await readJson(response)));
        return;
      }
      if (!(await mediaAnswer(response, asked, answer))) showError(answer, null);
    } catch (error) {
      if (streaming.stopped) showStopped(answer);
      else if (error && error.name === "AbortError") showError(answer, null); // timed out
      else showError(answer, word("webchat:offline"));
    } finally {
      window.clearTimeout(timer);
      state.busy = false;
      state.streaming = null;
      showStop(false);
    }
  }

  // One event of an answer's stream shown: its progress line, its text so far, the whole
  // answer or its error. True once the answer (or its error) is shown.
  function showEvent(answer, type, data) {
    if (type === "reasoning" && data && typeof data.text === "string" && data.text) {
      delete answer.status.dataset.word;
      answer.status.textContent = data.text;
    } else if (type === "chunk" && data) {
      if (data.reset) answer.streamed = "";
      if (typeof data.text === "string") answer.streamed += data.text;
      fillAnswer(answer.text, answer.streamed);
      scrollDown();
    } else if (type === "done" && data) {
      finish(answer, data);
      return true;
    } else if (type === "error") {
      showError(answer, failureMessage(data));
      return true;
    }
    return false;
  }

  // The stream of a photo's or recording's answer, as a typed question's, with what was
  // heard shown in place of the question. True once the answer (or its error) is shown.
  async function mediaAnswer(response, asked, answer) {
    for await (const { type, data } of events(response)) {
      if (type === "heard" && data && typeof data.message === "string") {
        asked.querySelector(".question-text").textContent = data.message;
        asked.classList.add("heard");
      } else if (showEvent(answer, type, data)) {
        return true;
      }
    }
    return false;
  }

  // The operator's look (WEB_CHAT_COLOR, WEB_CHAT_LOGO_URL): CSS custom properties set
  // through the CSSOM, which the page's style-src 'self' allows.
  function applyTheme(theme) {
    if (!theme || typeof theme !== "object") return;
    if (typeof theme.color === "string" && /^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(theme.color)) {
      document.documentElement.style.setProperty("--accent", theme.color);
      document.documentElement.style.setProperty("--accent-dark", theme.color);
    }
    const logo = safeUrl(theme.logo);
    if (logo) {
      ui.logo.src = logo;
      ui.logo.hidden = false;
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
