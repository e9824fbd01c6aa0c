// The table of contents beside a page: the filter above it, the current page scrolled into
// view, on phones the table in a drawer behind the header's "Contents" button, and on a large
// tree the whole list loaded when the reader turns to it. Without JavaScript the filter stays
// hidden and, on phones, the table stays after the page's content.
"use strict";

// On a tree too large for every page to hold it, the page holds the areas and its own branch,
// and the nav names the whole list (data-contents: one resource per version of the wiki,
// which browsers keep). It is fetched once, the first time the reader points at, focuses or
// filters the contents, and put in place of the page's list: marked for this page (its link
// current, the sections leading to it open), the focus kept on the same link. Closed sections
// take no room, so the entries already shown do not move. On a failure the page's own list
// stays, and the next turn tries again.
function setUpWholeList(toc, sidebar, loaded) {
  const url = toc.dataset.contents;
  if (!url) return;
  let loading = false;

  function mark(list) {
    const here = Array.from(list.querySelectorAll("a")).find(
      (a) => a.getAttribute("href") === window.location.pathname,
    );
    if (!here) return;
    here.setAttribute("aria-current", "page");
    for (let up = here.closest("details"); up; up = up.parentElement.closest("details")) {
      up.open = true;
    }
    const own = here.parentElement.querySelector(":scope > details");
    if (own) own.open = true;
  }

  function load() {
    if (loading) return;
    loading = true;
    fetch(url, { credentials: "same-origin" })
      .then((response) => {
        if (!response.ok) throw new Error(`${url}: ${response.status}`);
        return response.text();
      })
      .then((html) => {
        const template = document.createElement("template");
        template.innerHTML = html;
        const list = template.content.querySelector("ol");
        const old = toc.querySelector(":scope > ol");
        const focused = old.contains(document.activeElement) && document.activeElement;
        mark(list);
        old.replaceWith(list);
        delete toc.dataset.contents;
        if (focused && focused.matches("a")) {
          const same = Array.from(list.querySelectorAll("a")).find(
            (a) => a.getAttribute("href") === focused.getAttribute("href"),
          );
          if (same) same.focus({ preventScroll: true });
        }
        loaded();
      })
      .catch(() => {
        loading = false;
      });
  }

  sidebar.addEventListener("pointerenter", load);
  sidebar.addEventListener("focusin", load);
}

// Whether a and b are at most one edit apart: one letter inserted, deleted or changed, or two
// neighbours swapped (the Damerau–Levenshtein distance, in its optimal string alignment
// form, is 0 or 1). Search forgives typos on the server, by trigram similarity
// (chapters/search), which a page cannot ask for each keystroke; one edit catches most typos.
function withinOneEdit(a, b) {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  if (a.length === b.length) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

// A word typed of five letters or more matches a word of a name one edit away
// ("kernal" finds "Kernel"), or the start of a longer one ("kernal" finds "Kernels"); a
// shorter word must be found as typed, since one edit turns it into too many others.
const FORGIVEN = /^\p{L}{5,}$/u;

function nearWord(word, words) {
  return words.some(
    (other) =>
      withinOneEdit(word, other) ||
      (other.length > word.length && withinOneEdit(word, other.slice(0, word.length))),
  );
}

// Narrow the contents to the entries whose names hold every word typed (any case; a word of
// five letters or more also one edit away, as nearWord says), with the
// sections leading to them and everything under a matching section; every shown section is
// opened, and the sections' own open state comes back when the filter is emptied. All in the
// page: the entries' names are read once, on first use, and each keystroke walks them in
// document order, a parent always before its children, so one pass marks what to show.
function setUpFilter(toc) {
  const box = document.querySelector(".toc-filter");
  if (!box) return null;
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
      const name = item.firstElementChild.textContent.toLowerCase();
      return {
        item,
        name,
        words: name.split(/[^\p{L}\p{N}]+/u).filter(Boolean),
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
      const matched = words.every(
        (word) =>
          entry.name.includes(word) || (FORGIVEN.test(word) && nearWord(word, entry.words)),
      );
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
  // After the whole list replaced the page's: read the entries again, filter them anew.
  return function reread() {
    entries = null;
    filtering = false;
    toc.classList.remove("toc-filtering");
    if (input.value) apply();
  };
}

// On a phone, the table is a drawer over the page (laid out so by wiki.css from the start,
// under the "js" class js/theme.js sets), opened by the header's "Contents" button:
// while it is open the rest of the page is inert, Tab and Shift+Tab go round within it, and
// Escape, its Close button or a tap beside it closes it and gives the focus back to the
// button.
function setUpDrawer(sidebar, toc, button) {
  const phone = window.matchMedia("(max-width: 50rem)");
  const root = document.documentElement;
  const outside = () => Array.from(document.body.children).filter((el) => !el.contains(sidebar));
  const head = document.createElement("div");
  head.className = "drawer-head";
  head.innerHTML = '<p>Contents</p><button type="button" class="icon-button">Close</button>';
  const close = head.querySelector("button");
  sidebar.prepend(head);
  const backdrop = document.createElement("div");
  backdrop.className = "drawer-backdrop";
  backdrop.hidden = true;
  sidebar.after(backdrop);
  // The layout's own children that are not the sidebar are inert too (the page's <main>).
  const others = () => [...outside(), ...Array.from(sidebar.parentElement.children)]
    .filter((el) => el !== sidebar && el !== backdrop && !el.contains(sidebar));

  function isOpen() {
    return root.classList.contains("drawer-open");
  }

  function setOpen(open) {
    if (open === isOpen()) return;
    root.classList.toggle("drawer-open", open);
    button.setAttribute("aria-expanded", String(open));
    backdrop.hidden = !open;
    for (const element of others()) element.inert = open;
    if (open) {
      sidebar.setAttribute("role", "dialog");
      sidebar.setAttribute("aria-modal", "true");
      sidebar.setAttribute("aria-label", "Contents");
      reveal(sidebar, toc);
      (toc.querySelector('[aria-current="page"]') || toc.querySelector("a")).focus({
        preventScroll: true,
      });
    } else {
      sidebar.removeAttribute("role");
      sidebar.removeAttribute("aria-modal");
      sidebar.removeAttribute("aria-label");
      button.focus();
    }
  }

  // The stops shown: not those in a closed section (skipped, not removed, from the layout).
  function focusable() {
    return Array.from(sidebar.querySelectorAll("a[href], button, input, summary")).filter((el) =>
      el.checkVisibility(),
    );
  }

  button.addEventListener("click", () => setOpen(!isOpen()));
  close.addEventListener("click", () => setOpen(false));
  backdrop.addEventListener("click", () => setOpen(false));
  sidebar.addEventListener("keydown", (event) => {
    if (!isOpen()) return;
    if (event.key === "Escape") {
      event.preventDefault();
      setOpen(false);
    } else if (event.key === "Tab") {
      const stops = focusable();
      const first = stops[0];
      const last = stops[stops.length - 1];
      if (event.shiftKey && document.activeElement === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && document.activeElement === last) {
        event.preventDefault();
        first.focus();
      }
    }
  });
  phone.addEventListener("change", () => {
    if (!phone.matches) setOpen(false);
  });
  window.requestAnimationFrame(() => {
    window.requestAnimationFrame(() => root.classList.add("drawer-animate"));
  });
}

// Scroll the sidebar (not the window) so the current page sits a third of the way down.
function reveal(sidebar, toc) {
  const current = toc.querySelector('[aria-current="page"]');
  if (!current) return;
  const offset = current.getBoundingClientRect().top - sidebar.getBoundingClientRect().top;
  sidebar.scrollTop += offset - sidebar.clientHeight / 3;
}

document.addEventListener("DOMContentLoaded", () => {
  const toc = document.getElementById("toc");
  const sidebar = document.getElementById("sidebar");
  if (!toc || !sidebar) return;
  const reread = setUpFilter(toc);
  setUpWholeList(toc, sidebar, () => reread && reread());
  const button = document.querySelector(".toc-toggle");
  if (button) setUpDrawer(sidebar, toc, button);
  reveal(sidebar, toc);
});
