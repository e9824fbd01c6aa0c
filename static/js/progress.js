// The reader's progress, applied in the browser: readers' pages are the same for every reader
// (chapters/caching), so nothing of it is on the page the server sends.
//
// - A reader who is not signed in keeps the chapters done in localStorage ("wiki-progress":
//   {"done": {"<id>": "<path>"}}); a signed-in reader's are on the server, read from and
//   written to the JSON of chapters/progress.py, whose URLs the signed-in header names
//   (data-progress-url, data-progress-join-url). On the first signed-in page, the chapters the
//   browser kept join the account, then the browser forgets them.
// - The chapter opened or marked last ("wiki-last-chapter": {"path", "title", "at"}) stays in
//   the browser, for "Continue where you left off" on the home page; a signed-in reader's
//   last mark, from the server, counts too, whichever is newer.
// - On a chapter: "Mark as done" at its end (the D key presses it, js/keys.js). Everywhere:
//   a tick after each chapter done in "All chapters" and in a section's list, "N of M
//   chapters done" for the sections and areas whose progress the page shows (data-progress:
//   the section's path, data-chapters: how many chapters it has), once any chapter is done;
//   after a section's name in a list ("N of M done"), once one of its own is.
// - Prerequisites (chapters/prerequisites.py): a tick after each chapter done in a chapter's
//   "Before this" and in an area's list of prerequisites; the chapters done hidden from "A path
//   to this chapter"; the class "is-done" on each done chapter's node of an area's graph.
"use strict";

(() => {
  const DONE_KEY = "wiki-progress";
  const LAST_KEY = "wiki-last-chapter";
  const account = document.querySelector(".account[data-progress-url]");
  const box = document.querySelector(".chapter-done[data-chapter]"); // on a chapter

  function stored(key) {
    try {
      return JSON.parse(localStorage.getItem(key)) || null;
    } catch {
      return null; // storage refused (private windows) or a value not ours
    }
  }

  function store(key, value) {
    try {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, JSON.stringify(value));
    } catch {
      // Storage refused: progress lasts as long as the page.
    }
  }

  // The signed-in reader's progress from the server: {"done": [...], "last": {...}}.
  async function server(url, fields) {
    const init = { credentials: "same-origin", headers: { Accept: "application/json" } };
    if (fields) {
      const token = document.querySelector(".sign-out [name=csrfmiddlewaretoken]");
      init.method = "POST";
      init.body = new URLSearchParams(fields);
      init.headers["X-CSRFToken"] = token ? token.value : "";
    }
    const response = await fetch(url, init);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    return response.json();
  }

  // What the page shows: the paths done, by chapter id, and the chapter read last.
  const state = { done: new Map(), last: stored(LAST_KEY) };

  function newer(a, b) {
    if (!a) return b;
    if (!b) return a;
    return Date.parse(b.at) > Date.parse(a.at) ? b : a;
  }

  function fromServer(answer) {
    state.done = new Map(answer.done.map((chapter) => [String(chapter.id), chapter.path]));
    const marked = answer.last;
    state.last = newer(
      stored(LAST_KEY),
      marked && { path: marked.path, title: marked.title, at: marked.done },
    );
  }

  async function load() {
    const kept = (stored(DONE_KEY) || {}).done || {};
    if (!account) {
      state.done = new Map(Object.entries(kept));
      // A chapter moved since it was marked: its tick follows it to its new path.
      const id = box?.dataset.chapter;
      if (state.done.has(id) && state.done.get(id) !== window.location.pathname) {
        state.done.set(id, window.location.pathname);
        store(DONE_KEY, { done: Object.fromEntries(state.done) });
      }
      return;
    }
    const ids = Object.keys(kept);
    if (ids.length) {
      fromServer(await server(account.dataset.progressJoinUrl, { chapters: ids.join(",") }));
      store(DONE_KEY, null);
    } else {
      fromServer(await server(account.dataset.progressUrl));
    }
  }

  function tick() {
    const span = document.createElement("span");
    span.className = "done-tick";
    const mark = Object.assign(document.createElement("span"), { textContent: "✓" });
    mark.setAttribute("aria-hidden", "true");
    const text = Object.assign(document.createElement("span"), { textContent: "(done)" });
    text.className = "visually-hidden";
    span.append(mark, text);
    return span;
  }

  function applyTicks(paths) {
    const links = document.querySelectorAll(
      "#toc li.toc-chapter > a, .children li.child-chapter > a, .before-this > a, .prerequisite-list a",
    );
    for (const link of links) {
      const done = paths.has(new URL(link.href).pathname);
      const ticked = link.nextElementSibling?.classList.contains("done-tick");
      if (done && !ticked) link.after(tick());
      else if (!done && ticked) link.nextElementSibling.remove();
    }
  }

  function applyCounts(paths) {
    for (const count of document.querySelectorAll(".progress[data-progress]")) {
      const total = Number(count.dataset.chapters);
      const within = [...paths].filter((path) => path.startsWith(count.dataset.progress));
      const done = Math.min(within.length, total);
      const bar = count.querySelector("progress");
      if (bar) bar.value = done;
      const compact = count.classList.contains("progress-compact");
      count.querySelector(".progress-text").textContent = compact
        ? `${done} of ${total} done`
        : `${done} of ${total} chapters done`;
      // After a section's name, only once the reader has begun it.
      count.hidden = compact ? done === 0 : paths.size === 0;
    }
  }

  // The path to a chapter lists only what is left to do; the graph fills in what is done.
  function applyPrerequisites(paths) {
    for (const path of document.querySelectorAll(".prerequisite-path")) {
      const items = [...path.querySelectorAll("li")];
      for (const item of items) item.hidden = paths.has(new URL(item.querySelector("a").href).pathname);
      path.querySelector(".path-done").hidden = items.some((item) => !item.hidden);
    }
    for (const node of document.querySelectorAll("a.prerequisite-node")) {
      node.classList.toggle("is-done", paths.has(node.getAttribute("href")));
    }
  }

  function applyButton() {
    const done = state.done.has(box.dataset.chapter);
    const button = box.querySelector(".done-button");
    button.replaceChildren(done ? "Done " : "Mark as done");
    if (done) {
      const mark = Object.assign(document.createElement("span"), { textContent: "✓" });
      mark.setAttribute("aria-hidden", "true");
      button.append(mark);
    }
    button.classList.toggle("is-done", done);
  }

  function applyContinue(resume) {
    const last = state.last;
    resume.hidden = !last;
    if (!last) return;
    const link = Object.assign(document.createElement("a"), { href: last.path });
    link.className = "continue-link";
    link.textContent = `Continue where you left off: ${last.title}`;
    resume.replaceChildren(link);
  }

  function apply() {
    const paths = new Set(state.done.values());
    applyTicks(paths);
    applyCounts(paths);
    applyPrerequisites(paths);
    if (box) applyButton();
    const resume = document.querySelector(".continue-reading");
    if (resume) applyContinue(resume);
  }

  function remember() {
    const title = document.querySelector("article.page h1").textContent;
    state.last = { path: window.location.pathname, title, at: new Date().toISOString() };
    store(LAST_KEY, state.last);
  }

  async function toggle() {
    const id = box.dataset.chapter;
    const done = !state.done.has(id);
    const button = box.querySelector(".done-button");
    // Pressed with the D key, the button is not focused: leave the focus where it is.
    const focused = document.activeElement === button;
    button.disabled = true;
    try {
      if (account) {
        fromServer(await server(account.dataset.progressUrl, { chapter: id, done: String(done) }));
      } else {
        if (done) state.done.set(id, window.location.pathname);
        else state.done.delete(id);
        store(DONE_KEY, { done: Object.fromEntries(state.done) });
      }
      remember();
      const title = state.last.title;
      box.querySelector(".done-status").textContent = done
        ? `“${title}” marked as done.`
        : `“${title}” marked as not done.`;
    } catch (error) {
      box.querySelector(".done-status").textContent = "Not saved: try again.";
      throw error;
    } finally {
      button.disabled = false;
      apply();
      if (focused) button.focus();
    }
  }

  if (box) {
    remember();
    box.querySelector(".done-button").addEventListener("click", toggle);
  }
  const toc = document.getElementById("toc");
  if (toc) new MutationObserver(apply).observe(toc, { childList: true });
  load().then(apply);
})();
