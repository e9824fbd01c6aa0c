// The header's search box offers the top results under it as one types (from two
// characters, a moment after the last key): chapters.views.search_top_results answers them
// as JSON. Up and Down move through them, Enter opens the one chosen (or, with none chosen,
// submits the form: the search page), a click opens the one clicked, Escape closes the list. Without this script the box
// is a plain form that opens the search page.
"use strict";

(() => {
  const input = document.getElementById("site-search-q");
  const list = document.getElementById("site-search-results");
  if (!input || !list || !input.dataset.topResults) return;
  const MIN_TYPED = 2;
  const DELAY_MS = 150;
  let timer = null;
  let asked = "";
  let active = -1;

  const options = () => Array.from(list.querySelectorAll("[role=option]"));

  function close() {
    list.hidden = true;
    list.replaceChildren();
    input.setAttribute("aria-expanded", "false");
    input.removeAttribute("aria-activedescendant");
    active = -1;
  }

  function choose(index) {
    const all = options();
    all.forEach((option, i) => option.setAttribute("aria-selected", String(i === index)));
    active = index;
    if (index >= 0) input.setAttribute("aria-activedescendant", all[index].id);
    else input.removeAttribute("aria-activedescendant");
  }

  function show(data) {
    list.replaceChildren();
    data.results.forEach((result, index) => {
      const item = document.createElement("li");
      item.id = `site-search-results:${index}`; // no heading slug has a colon
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", "false");
      // An option holds text, no link: a listbox's options are not to nest controls
      // (axe's nested-interactive); the list opens the one clicked or chosen.
      item.dataset.url = result.url;
      // title_html and heading_html are the server's escaped text with <mark> their only
      // markup (chapters.search.highlight, chapters.search.sections); everything else is
      // set as text. The url opens the page at the heading named (its #id).
      const title = document.createElement("span");
      title.className = "site-search-title";
      title.innerHTML = result.title_html;
      item.append(title);
      if (result.heading) {
        const heading = document.createElement("span");
        heading.className = "site-search-heading";
        const mark = document.createElement("span");
        mark.setAttribute("aria-hidden", "true");
        mark.textContent = "› ";
        const at = document.createElement("span");
        at.className = "visually-hidden";
        at.textContent = ", at ";
        const text = document.createElement("span");
        text.innerHTML = result.heading_html;
        heading.append(at, mark, text);
        item.append(heading);
      }
      if (result.path) {
        const path = document.createElement("span");
        path.className = "site-search-path";
        path.textContent = result.path;
        item.append(path);
      }
      list.append(item);
    });
    const open = data.results.length > 0;
    list.hidden = !open;
    input.setAttribute("aria-expanded", String(open));
    active = -1;
  }

  async function ask(query) {
    asked = query;
    const url = `${input.dataset.topResults}?q=${encodeURIComponent(query)}`;
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const data = await response.json();
      if (query === asked && input.value.trim() === query) show(data);
    } catch {
      close(); // offline or refused: the form still works
    }
  }

  input.addEventListener("input", () => {
    clearTimeout(timer);
    const query = input.value.trim().split(/\s+/).join(" ");
    if (query.length < MIN_TYPED) {
      asked = "";
      close();
      return;
    }
    timer = setTimeout(() => ask(query), DELAY_MS);
  });

  input.addEventListener("keydown", (event) => {
    const all = options();
    if (event.key === "Escape") {
      if (!list.hidden) {
        event.preventDefault();
        close();
      }
    } else if (event.key === "ArrowDown" && all.length) {
      event.preventDefault();
      choose((active + 1) % all.length);
    } else if (event.key === "ArrowUp" && all.length) {
      event.preventDefault();
      choose(active <= 0 ? all.length - 1 : active - 1);
    } else if (event.key === "Enter" && active >= 0 && all[active]) {
      event.preventDefault();
      window.location.assign(all[active].dataset.url);
    }
  });

  // Keep the focus in the box while a result is clicked, then open it.
  list.addEventListener("mousedown", (event) => event.preventDefault());
  list.addEventListener("click", (event) => {
    const option = event.target.closest("[role=option]");
    if (option) window.location.assign(option.dataset.url);
  });

  input.addEventListener("blur", () => {
    // Let a click on a result land before the list goes.
    setTimeout(() => {
      if (!list.contains(document.activeElement)) close();
    }, 200);
  });
})();
