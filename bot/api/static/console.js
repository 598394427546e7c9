// The admin console: sign in once with an admin API key (a session cookie the page
// cannot read, and a CSRF token kept in memory only), then documents, gaps, cases,
// feedback and figures. Every text from the server is set with textContent; charts are
// SVG built with DOM methods.
(() => {
  "use strict";

  const LANGUAGE = "ragbot.admin.language";
  const POLL_MS = 3000;
  const JOB_MS = 1000;
  const SVG = "http://www.w3.org/2000/svg";
  const WAITING = new Set(["queued", "running"]);
  const STORED = new Set(["added", "replaced", "unchanged"]);
  const state = { config: null, language: "en", csrf: "", who: null, page: "documents" };
  const ui = {};
  let casesTimer = null;

  function word(key, value) {
    const words = (state.config && state.config.words[state.language]) || {};
    const text = typeof words[key] === "string" ? words[key] : key;
    return value === undefined ? text : text.split("{value}").join(String(value));
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function localTime(iso) {
    const when = new Date(iso);
    return Number.isNaN(when.getTime()) ? String(iso) : when.toLocaleString(state.language);
  }

  function notice(text, failed) {
    ui.notice.textContent = text || "";
    ui.notice.classList.toggle("failed", Boolean(failed));
  }

  async function call(method, path, body) {
    const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (method !== "GET") init.headers["X-CSRF-Token"] = state.csrf;
    if (body instanceof FormData) {
      init.body = body;
    } else if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    if (response.status === 401 && path !== "/admin/session") signedOut(word("signed_out"));
    return { ok: response.ok, status: response.status, data: data || {} };
  }

  function failure(result) {
    return word("error", (result.data && result.data.message) || result.status);
  }

  // --- words and language -------------------------------------------------------------

  // a job's or a case's status in the page's language (the server's code when unknown)
  function statusWord(kind, status) {
    const key = `${kind}_${status}`;
    const text = word(key);
    return text === key ? String(status) : text;
  }

  function applyWords() {
    document.documentElement.lang = state.language;
    for (const node of document.querySelectorAll("[data-word]")) {
      node.textContent = word(node.dataset.word);
    }
    // the filter's "every collection" choice is built, not marked up: name it again
    const every = ui.docCollection && ui.docCollection.querySelector("option[value='']");
    if (every) every.textContent = word("all_collections");
    if (ui.oidc && state.config.oidc) {
      ui.oidc.textContent = word("oidc_sign_in", state.config.oidc);
      ui.oidc.hidden = false;
    }
    for (const node of document.querySelectorAll("[data-label]")) {
      node.setAttribute("aria-label", word(node.dataset.label));
    }
    document.title = word("title");
  }

  function pickLanguage(language) {
    state.language = state.config.languages.includes(language) ? language : "en";
    ui.language.value = state.language;
    try {
      window.localStorage.setItem(LANGUAGE, state.language);
    } catch {
      // storage off: the choice lasts as long as the page
    }
    applyWords();
    if (state.who) show(state.page);
  }

  function firstLanguage() {
    try {
      const kept = window.localStorage.getItem(LANGUAGE);
      if (kept) return kept;
    } catch {
      // no storage: the browser's language
    }
    const asked = (navigator.language || "en").toLowerCase();
    if (asked.startsWith("zh")) {
      return /(tw|hk|mo|hant)/.test(asked) ? "zh-hant" : "zh-hans";
    }
    return "en";
  }

  // --- signing in and out -------------------------------------------------------------

  function signedIn(session) {
    state.csrf = session.csrf;
    state.who = session;
    ui.who.textContent = session.name;
    ui.signIn.hidden = true;
    ui.signOut.hidden = false;
    ui.signedIn.hidden = false;
    for (const select of [ui.docCollection, ui.uploadCollection]) {
      select.replaceChildren();
      if (select === ui.docCollection) select.append(option("", word("all_collections")));
      for (const name of session.collections) select.append(option(name, name));
    }
    show(state.page);
  }

  function signedOut(message) {
    state.csrf = "";
    state.who = null;
    stopCases();
    ui.who.textContent = "";
    ui.signIn.hidden = false;
    ui.signOut.hidden = true;
    ui.signedIn.hidden = true;
    notice(message || "", Boolean(message));
  }

  function option(value, text) {
    const node = element("option", "", text);
    node.value = value;
    return node;
  }

  async function signIn(event) {
    event.preventDefault();
    const key = ui.key.value.trim();
    if (!key) return;
    const result = await call("POST", "/admin/session", { key });
    ui.key.value = "";
    if (result.ok) {
      notice("");
      signedIn(result.data);
    } else if (result.data.code === "not_admin") {
      notice(word("refused_not_admin"), true);
    } else if (result.status === 401) {
      notice(word("refused_unknown"), true);
    } else {
      notice(failure(result), true);
    }
  }

  async function signOut() {
    let result;
    try {
      result = await call("DELETE", "/admin/session");
    } catch {
      result = { ok: false, status: 0, data: {} };
    }
    // still signed in unless the server ended the session (401: it had ended already)
    if (!result.ok && result.status !== 401) {
      notice(word("sign_out_failed", (result.data && result.data.message) || result.status || "network"), true);
      return;
    }
    signedOut("");
    ui.key.focus();
  }

  // --- pages --------------------------------------------------------------------------

  const LOADERS = {
    documents: loadDocuments,
    gaps: loadGaps,
    cases: loadCases,
    feedback: loadFeedback,
    figures: loadFigures,
  };

  function show(page) {
    state.page = page;
    for (const tab of document.querySelectorAll(".tab")) {
      const current = tab.dataset.page === page;
      if (current) tab.setAttribute("aria-current", "page");
      else tab.removeAttribute("aria-current");
    }
    for (const section of document.querySelectorAll(".page")) {
      section.hidden = section.id !== `page-${page}`;
    }
    stopCases();
    LOADERS[page]();
  }

  // documents

  async function loadDocuments() {
    const result = await call("GET", "/admin/api/documents");
    if (!result.ok) return notice(failure(result), true);
    state.documents = Array.isArray(result.data) ? result.data : [];
    renderDocuments();
  }

  function renderDocuments() {
    const body = ui.documents.tBodies[0];
    const wanted = ui.docSearch.value.trim().toLowerCase();
    const collection = ui.docCollection.value;
    const rows = (state.documents || []).filter(
      (d) =>
        (!wanted || d.title.toLowerCase().includes(wanted)) &&
        (!collection || d.collection === collection),
    );
    body.replaceChildren();
    if (!rows.length) {
      const row = element("tr");
      const cell = element("td", "empty", word("no_documents"));
      cell.colSpan = 7;
      row.append(cell);
      body.append(row);
      return;
    }
    for (const doc of rows) {
      const row = element("tr", "document");
      const title = element("th", "doc-title", doc.title);
      title.scope = "row";
      row.append(title);
      // each value names its column: on a phone the table stacks and the header is hidden
      const values = [
        ["collection", "", doc.collection],
        ["col_language", "", doc.language || ""],
        ["col_chunks", "", doc.chunks],
        ["col_updated", "", localTime(doc.added)],
        ["col_cited", "doc-cited", doc.cited],
      ];
      for (const [label, className, value] of values) {
        const cell = element("td", className, value);
        cell.dataset.label = word(label);
        row.append(cell);
      }
      const cell = element("td");
      const remove = element("button", "secondary doc-delete", word("delete"));
      remove.type = "button";
      remove.setAttribute("aria-label", `${word("delete")}: ${doc.title}`);
      remove.addEventListener("click", () => deleteDocument(remove, doc.title));
      cell.append(remove);
      row.append(cell);
      body.append(row);
    }
  }

  async function deleteDocument(button, title) {
    if (!button.classList.contains("confirming")) {
      // a second press deletes: no dialog a screen reader or a phone would trip over
      button.classList.add("confirming");
      button.textContent = word("confirm_delete", title);
      return;
    }
    const result = await call("DELETE", `/admin/api/documents?title=${encodeURIComponent(title)}`);
    if (!result.ok) return notice(failure(result), true);
    notice(word("deleted", title));
    loadDocuments();
  }

  async function followJob(jobId, line, onDone) {
    for (;;) {
      const result = await call("GET", `/admin/api/jobs/${jobId}`);
      if (!result.ok) {
        line.textContent = failure(result);
        return null;
      }
      const job = result.data;
      const extra = job.reason ? ` (${job.reason})` : "";
      line.textContent = `${word("job", `#${job.id}`)}: ${statusWord("job", job.status)}${extra}`;
      line.dataset.status = job.status;
      if (!WAITING.has(job.status)) {
        if (onDone) await onDone(job);
        return job;
      }
      await new Promise((resolve) => window.setTimeout(resolve, JOB_MS));
    }
  }

  async function upload(event) {
    event.preventDefault();
    const file = ui.uploadFile.files[0];
    if (!file) return;
    const form = new FormData();
    form.append("file", file);
    if (ui.uploadTitle.value.trim()) form.append("title", ui.uploadTitle.value.trim());
    form.append("collection", ui.uploadCollection.value);
    ui.uploadState.textContent = "";
    const result = await call("POST", "/admin/api/documents", form);
    if (!result.ok) {
      ui.uploadState.textContent = failure(result);
      return;
    }
    ui.upload.reset();
    await followJob(result.data.job_id, ui.uploadState, loadDocuments);
  }

  // gaps

  async function loadGaps() {
    const result = await call("GET", "/admin/api/gaps");
    if (!result.ok) return notice(failure(result), true);
    ui.gaps.replaceChildren();
    const topics = result.data.topics || [];
    if (!topics.length) ui.gaps.append(element("li", "empty", word("no_gaps")));
    topics.forEach((topic, index) => ui.gaps.append(gapGroup(topic, index)));
    loadPublished();
  }

  // the answers published from here, each withdrawable (the bot stops answering from it)
  async function loadPublished() {
    const result = await call("GET", "/admin/api/answers");
    if (!result.ok) return;
    const answers = Array.isArray(result.data) ? result.data : [];
    ui.published.replaceChildren();
    if (!answers.length) ui.published.append(element("li", "empty", word("no_published")));
    for (const one of answers) {
      const item = element("li", "published-item");
      item.dataset.id = String(one.id);
      item.append(element("strong", "published-question", one.question));
      item.append(element("span", "published-meta", `${one.collection} · ${one.written_by}`));
      const withdraw = element("button", "secondary published-withdraw", word("withdraw"));
      withdraw.type = "button";
      withdraw.setAttribute("aria-label", `${word("withdraw")}: ${one.question}`);
      withdraw.addEventListener("click", async () => {
        withdraw.disabled = true;
        const done = await call("POST", `/admin/api/answers/${one.id}/withdraw`);
        if (!done.ok) {
          withdraw.disabled = false;
          return notice(failure(done), true);
        }
        notice(word("withdrawn", one.question));
        loadPublished();
      });
      item.append(withdraw);
      ui.published.append(item);
    }
  }

  function gapGroup(topic, index) {
    const item = element("li", "group card");
    item.append(element("h3", "group-label", topic.label));
    const languages = Object.entries(topic.languages || {})
      .map(([language, n]) => `${language} ${n}`)
      .join(" · ");
    const meta = element("p", "group-meta");
    meta.append(element("span", "group-count", word("gap_count", topic.count)));
    meta.append(element("span", "group-languages", languages));
    meta.append(element("span", "", `${word("gap_newest")}: ${localTime(topic.newest)}`));
    item.append(meta);
    const examples = element("details", "group-examples");
    examples.append(element("summary", "", word("gap_examples")));
    const list = element("ul");
    for (const question of topic.questions || topic.examples || []) {
      list.append(element("li", "group-question", question));
    }
    examples.append(list);
    item.append(examples);

    const form = element("form", "publish");
    const id = `gap-${index}`;
    const questionLabel = element("label", "", word("question"));
    questionLabel.htmlFor = `${id}-question`;
    const question = element("input", "publish-question");
    question.id = `${id}-question`;
    question.maxLength = 500;
    question.value = topic.label;
    const answerLabel = element("label", "", word("answer"));
    answerLabel.htmlFor = `${id}-answer`;
    const answer = element("textarea", "publish-answer");
    answer.id = `${id}-answer`;
    answer.rows = 3;
    answer.maxLength = 4000;
    answer.required = true;
    const collectionLabel = element("label", "", word("collection"));
    collectionLabel.htmlFor = `${id}-collection`;
    const collection = element("select", "publish-collection");
    collection.id = `${id}-collection`;
    for (const name of state.who.collections) collection.append(option(name, name));
    const send = element("button", "publish-send", word("publish"));
    send.type = "submit";
    const line = element("p", "publish-state");
    line.setAttribute("role", "status");
    line.setAttribute("aria-live", "polite");
    form.append(questionLabel, question, answerLabel, answer, collectionLabel, collection, send, line);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      send.disabled = true;
      line.textContent = word("publishing");
      const body = {
        question: question.value.trim(),
        answer: answer.value.trim(),
        collection: collection.value,
      };
      const result = await call("POST", "/admin/api/answers", body);
      if (!result.ok) {
        line.textContent = failure(result);
        send.disabled = false;
        return;
      }
      const job = await followJob(result.data.job_id, line);
      send.disabled = false;
      if (!job || !STORED.has(job.status)) return;
      const asked = (topic.questions || topic.examples || []).concat([body.question]);
      const checked = await call("POST", "/admin/api/answers/check", {
        questions: Array.from(new Set(asked)).slice(0, 50),
        collection: body.collection,
      });
      if (!checked.ok) {
        line.textContent = failure(checked);
        return;
      }
      const total = checked.data.answered.length + checked.data.unanswered.length;
      line.textContent = word("check_result", `${checked.data.answered.length} / ${total}`);
      line.dataset.answered = String(checked.data.answered.length);
    });
    item.append(form);
    return item;
  }

  // cases

  function stopCases() {
    if (casesTimer !== null) window.clearTimeout(casesTimer);
    casesTimer = null;
  }

  async function loadCases() {
    const result = await call("GET", "/admin/api/cases");
    if (result.status === 404) {
      ui.cases.replaceChildren(element("li", "empty", word("cases_off")));
      return;
    }
    if (!result.ok) return notice(failure(result), true);
    renderCases(Array.isArray(result.data) ? result.data : []);
    if (state.page === "cases" && state.who) {
      casesTimer = window.setTimeout(loadCases, POLL_MS);
    }
  }

  function renderCases(cases) {
    const kept = new Map();
    for (const node of ui.cases.querySelectorAll(".case")) kept.set(node.dataset.id, node);
    const empty = ui.cases.querySelector(".empty");
    if (empty && cases.length) empty.remove();
    const seen = new Set();
    for (const one of cases) {
      const id = String(one.id);
      seen.add(id);
      let node = kept.get(id);
      if (!node) {
        node = caseItem(one);
        ui.cases.append(node);
      }
      const heading = `#${one.id} · ${statusWord("case", one.status)} · ${one.platform} · ${one.language} · ${localTime(one.opened_at)}`;
      const headingNode = node.querySelector(".case-heading");
      const headingText = heading + (one.claimed_by ? ` · ${one.claimed_by}` : "");
      // the list is a live region: only what changed is touched, so only that is announced
      if (headingNode.textContent !== headingText) headingNode.textContent = headingText;
      const talk = node.querySelector(".talk");
      const lines = (one.answer ? [["bot", "", one.answer]] : []).concat(
        one.messages.map((m) => [m.direction, `${m.author}: `, m.text]),
      );
      const said = JSON.stringify(lines);
      if (talk.dataset.said === said) continue;
      // earlier lines stay: only the new ones are added (a reply is appended, not re-read)
      const before = talk.dataset.said ? JSON.parse(talk.dataset.said) : [];
      const same = before.every((line, i) => JSON.stringify(line) === JSON.stringify(lines[i]));
      if (!same) talk.replaceChildren();
      for (const [direction, author, text] of lines.slice(same ? before.length : 0)) {
        const line = element("li", `talk-item ${direction}`);
        if (author) line.append(element("span", "talk-author", author));
        line.append(author ? element("span", "talk-text", text) : document.createTextNode(text));
        talk.append(line);
      }
      talk.dataset.said = said;
    }
    for (const [id, node] of kept) if (!seen.has(id)) node.remove();
    if (!cases.length && !ui.cases.querySelector(".empty")) {
      ui.cases.append(element("li", "empty", word("no_cases")));
    }
  }

  function caseItem(one) {
    const node = element("li", "case card");
    node.dataset.id = String(one.id);
    node.append(element("h3", "case-heading"));
    node.append(element("p", "case-question", one.question));
    node.append(element("ol", "talk"));
    const form = element("form", "reply");
    const label = element("label", "", word("reply"));
    label.htmlFor = `reply-${one.id}`;
    const text = element("textarea", "reply-text");
    text.id = `reply-${one.id}`;
    text.rows = 2;
    text.maxLength = 4000;
    const send = element("button", "reply-send", word("send"));
    send.type = "submit";
    const close = element("button", "secondary case-close", word("close"));
    close.type = "button";
    form.append(label, text, send, close);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (!text.value.trim()) return;
      send.disabled = true;
      const result = await call("POST", `/admin/api/cases/${one.id}/reply`, {
        text: text.value.trim(),
        request_id: crypto.randomUUID ? crypto.randomUUID().replace(/-/g, "") : undefined,
      });
      send.disabled = false;
      if (!result.ok) return notice(failure(result), true);
      text.value = "";
      stopCases();
      loadCases();
    });
    close.addEventListener("click", async () => {
      const result = await call("POST", `/admin/api/cases/${one.id}/close`);
      if (!result.ok) return notice(failure(result), true);
      stopCases();
      loadCases();
    });
    node.append(form);
    return node;
  }

  // feedback

  async function loadFeedback() {
    const path = `/admin/api/feedback?language=${encodeURIComponent(state.language)}`;
    const result = await call("GET", path);
    if (!result.ok) return notice(failure(result), true);
    ui.votes.replaceChildren();
    const votes = Array.isArray(result.data) ? result.data : [];
    if (!votes.length) ui.votes.append(element("li", "empty", word("no_votes")));
    for (const vote of votes) {
      const item = element("li", `vote card ${vote.helpful ? "up" : "down"}`);
      const mark = vote.helpful ? "👍" : "👎";
      const head = element("h3", "vote-mark");
      head.append(element("span", "", mark));
      head.append(element("span", "", ` ${word(vote.helpful ? "helpful" : "not_helpful")}`));
      head.append(element("span", "vote-when", ` · ${vote.platform} · ${localTime(vote.at)}`));
      item.append(head);
      item.append(element("p", "vote-question", `${word("question")}: ${vote.question}`));
      item.append(element("p", "vote-answer", vote.answer));
      if (vote.sources.length) {
        item.append(element("h4", "", word("sources")));
        const sources = element("ul", "vote-sources");
        for (const title of vote.sources) sources.append(element("li", "", title));
        item.append(sources);
      }
      item.append(element("h4", "", word("path")));
      const path = element("ol", "vote-path");
      for (const step of vote.path) path.append(element("li", "", step));
      item.append(path);
      ui.votes.append(item);
    }
  }

  // figures

  function barChart(caption, rows, format) {
    // rows: [label, value]; horizontal bars scaled to the largest value
    const figure = element("figure", "chart");
    figure.append(element("figcaption", "", caption));
    const max = Math.max(1, ...rows.map(([, value]) => Number(value) || 0));
    const rowHeight = 22;
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", `0 0 320 ${rows.length * rowHeight + 4}`);
    svg.setAttribute("role", "img");
    const summary = rows.map(([label, value]) => `${label}: ${format(value)}`).join("; ");
    svg.setAttribute("aria-label", `${caption}: ${summary}`);
    rows.forEach(([label, value], i) => {
      const y = i * rowHeight + 2;
      const name = document.createElementNS(SVG, "text");
      name.setAttribute("x", "0");
      name.setAttribute("y", String(y + 15));
      name.setAttribute("class", "chart-label");
      name.textContent = String(label);
      const bar = document.createElementNS(SVG, "rect");
      bar.setAttribute("x", "96");
      bar.setAttribute("y", String(y + 3));
      bar.setAttribute("height", "14");
      bar.setAttribute("width", String(Math.max(1, ((Number(value) || 0) / max) * 170)));
      bar.setAttribute("class", "chart-bar");
      const tip = document.createElementNS(SVG, "title");
      tip.textContent = `${label}: ${format(value)}`;
      bar.append(tip);
      const amount = document.createElementNS(SVG, "text");
      amount.setAttribute("x", "272");
      amount.setAttribute("y", String(y + 15));
      amount.setAttribute("class", "chart-value");
      amount.textContent = format(value);
      svg.append(name, bar, amount);
    });
    figure.append(svg);
    return figure;
  }

  function percent(value) {
    return value === null || value === undefined ? "–" : `${Math.round(Number(value) * 100)}%`;
  }

  function plain(value) {
    return value === null || value === undefined ? "–" : String(value);
  }

  async function loadFigures() {
    const result = await call("GET", "/admin/api/figures");
    if (!result.ok) return notice(failure(result), true);
    const stats = result.data;
    const daily = stats.daily || [];
    const day = (d) => new Date(`${d.day}T00:00:00Z`).toLocaleDateString(state.language, {
      month: "short",
      day: "numeric",
    });
    const charts = [];
    const caption = (key) => `${word(key)} — ${word("per_day", daily.length)}`;
    charts.push(barChart(caption("turns"), daily.map((d) => [day(d), d.turns]), plain));
    charts.push(barChart(caption("refusals"), daily.map((d) => [day(d), d.refusals]), plain));
    charts.push(barChart(caption("votes_up"), daily.map((d) => [day(d), d.helpful]), plain));
    charts.push(barChart(caption("votes_down"), daily.map((d) => [day(d), d.unhelpful]), plain));
    const rates = [
      [word("refusal_rate"), stats.refusal_rate],
      [word("helpful_rate"), (stats.feedback || {}).helpful_rate],
    ];
    charts.push(barChart(`${word("refusal_rate")} / ${word("helpful_rate")}`, rates, percent));
    const volumes = stats.volumes || {};
    charts.push(
      barChart(word("llm_per_turn"), [[word("turns"), volumes.llm_calls_per_turn || 0]], plain),
    );
    const latency = stats.latency_ms || {};
    charts.push(
      barChart(
        word("latency"),
        ["p50", "p95", "p99"].map((k) => [k, latency[k] || 0]),
        plain,
      ),
    );
    charts.push(barChart(word("by_platform"), Object.entries(stats.platforms || {}), plain));
    charts.push(barChart(word("by_language"), Object.entries(stats.languages || {}), plain));
    const queues = element("section", "queues");
    queues.append(element("h3", "", word("queues")));
    const list = element("dl", "queue-list");
    for (const [name, value] of Object.entries(stats.queues || {})) {
      // each figure in words (the health check's field name when the page has none)
      const label = word(`queue_${name}`);
      list.append(element("dt", "", label === `queue_${name}` ? name : label));
      list.append(element("dd", "", plain(value)));
    }
    queues.append(list);
    ui.figures.replaceChildren(...charts, queues);
  }

  // --- start --------------------------------------------------------------------------

  async function start() {
    for (const [name, id] of Object.entries({
      notice: "notice",
      signIn: "sign-in",
      key: "key",
      signOut: "sign-out",
      oidc: "oidc",
      signedIn: "signed-in",
      who: "who",
      language: "language",
      documents: "documents",
      docSearch: "doc-search",
      docCollection: "doc-collection",
      upload: "upload",
      uploadFile: "upload-file",
      uploadTitle: "upload-title",
      uploadCollection: "upload-collection",
      uploadState: "upload-state",
      gaps: "gaps",
      published: "published",
      cases: "cases",
      votes: "votes",
      figures: "figures",
    })) {
      ui[name] = document.getElementById(id);
    }
    const response = await fetch("/admin/config.json", { credentials: "same-origin" });
    state.config = await response.json();
    pickLanguage(firstLanguage());
    ui.language.addEventListener("change", () => pickLanguage(ui.language.value));
    ui.signIn.addEventListener("submit", signIn);
    ui.signOut.addEventListener("click", signOut);
    ui.upload.addEventListener("submit", upload);
    ui.docSearch.addEventListener("input", renderDocuments);
    ui.docCollection.addEventListener("change", renderDocuments);
    for (const tab of document.querySelectorAll(".tab")) {
      tab.addEventListener("click", () => show(tab.dataset.page));
    }
    const session = await call("GET", "/admin/session");
    if (session.ok) signedIn(session.data);
    else signedOut("");
    document.body.dataset.ready = "true";
  }

  document.addEventListener("DOMContentLoaded", start);
})();
