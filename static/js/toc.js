// The table of contents beside a page: the filter above it, the current page scrolled into
// view, and on narrow screens the table behind the header's "Contents" button. Without
// JavaScript the filter stays hidden and, on narrow screens, the table stays after the page's
// content.
"use strict";

// Narrow the contents to the entries whose names hold every word typed (any case), with the
// sections leading to them and everything under a matching section; every shown section is
// opened, and the sections' own open state comes back when the filter is emptied. All in the
// page: the entries' names are read once, on first use, and each keystroke walks them in
// document order, a parent always before its children, so one pass marks what to show.
function setUpFilter(toc) {
  const box = document.querySelector(".toc-filter");
  if (!box) return;
  const input = box.querySelector("input");
  const status = box.querySelector(".toc-filter-status");
  let entries = null;
  let filtering = false;
  let first = null; // the first entry that matches

  function read() {
    const items = toc.querySelectorAll("li");
    const index = new Map();
    entries = Array.from(items, (item, i) => {
      index.set(item, i);
      const parent = item.parentElement.closest("li");
      return {
        item,
        name: item.firstElementChild.textContent.toLowerCase(),
        parent: parent ? index.get(parent) : -1,
        details: item.querySelector(":scope > details"),
        wasOpen: false,
      };
    });
  }

  function clear() {
    for (const entry of entries) {
      entry.item.hidden = false;
      if (entry.details) entry.details.open = entry.wasOpen;
    }
    filtering = false;
    toc.classList.remove("toc-filtering");
    first = null;
    status.textContent = "";
  }

  function apply() {
    if (entries === null) read();
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    if (words.length === 0) {
      if (filtering) clear();
      return;
    }
    if (!filtering) {
      for (const entry of entries) if (entry.details) entry.wasOpen = entry.details.open;
      filtering = true;
      toc.classList.add("toc-filtering");
    }
    // 1: matches, or is under a match; 2: leads to a match.
    const shown = new Uint8Array(entries.length);
    let matches = 0;
    first = null;
    entries.forEach((entry, i) => {
      const matched = words.every((word) => entry.name.includes(word));
      if (matched) {
        matches += 1;
        first = first || entry;
      }
      if (matched || (entry.parent >= 0 && shown[entry.parent] === 1)) {
        shown[i] = 1;
        for (let up = entry.parent; up >= 0 && shown[up] === 0; up = entries[up].parent) {
          shown[up] = 2;
        }
      }
    });
    entries.forEach((entry, i) => {
      const hide = shown[i] === 0;
      if (entry.item.hidden !== hide) entry.item.hidden = hide;
      if (entry.details && !hide && !entry.details.open) entry.details.open = true;
    });
    status.textContent =
      matches === 0 ? "No chapters match." : `${matches} match${matches === 1 ? "" : "es"}`;
  }

  input.addEventListener("input", apply);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && input.value) {
      event.stopPropagation(); // clear the filter, not close the drawer
      input.value = "";
      apply();
    } else if (event.key === "Enter" && filtering && first) {
      window.location.assign(first.item.firstElementChild.href);
    }
  });
  box.hidden = false;
}

document.addEventListener("DOMContentLoaded", () => {
  const contents = document.getElementById("toc");
  if (contents) setUpFilter(contents);
  const sidebar = document.querySelector(".sidebar");
  const toc = sidebar && sidebar.querySelector("#toc");
  const button = document.querySelector(".toc-toggle");
  if (!toc || !button) return;
  const layout = sidebar.closest(".layout");
  const current = toc.querySelector('[aria-current="page"]');

  // Scroll the sidebar (not the window) so the current page sits a third of the way down.
  function reveal() {
    if (!current) return;
    const offset = current.getBoundingClientRect().top - sidebar.getBoundingClientRect().top;
    sidebar.scrollTop += offset - sidebar.clientHeight / 3;
  }

  function setOpen(open) {
    button.setAttribute("aria-expanded", String(open));
    layout.classList.toggle("toc-open", open);
    if (open) {
      reveal();
      // The table comes after the content in the document: take the keyboard there.
      (current || toc.querySelector("a")).focus({ preventScroll: true });
    }
  }

  button.setAttribute("aria-controls", toc.id);
  button.addEventListener("click", () => setOpen(button.getAttribute("aria-expanded") !== "true"));
  sidebar.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && layout.classList.contains("toc-open")) {
      setOpen(false);
      button.focus();
    }
  });
  layout.classList.add("toc-collapsible");
  button.hidden = false;
  reveal();
});
