// The table of contents beside a page: scroll the current page into view, and on narrow
// screens keep the table behind the header's "Contents" button. Without JavaScript the table
// stays after the page's content on narrow screens.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
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
