// Keyboard shortcuts: the left and right arrow keys go to the previous and next chapter
// (the links of the chapter's pager), "/" moves to the search box in the header. Keys typed
// into a field, and keys with a modifier (Alt+Left is the browser's Back), are left alone.
"use strict";

document.addEventListener("keydown", (event) => {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest("input, textarea, select, [contenteditable]")) return;

  if (event.key === "/") {
    const search = document.getElementById("site-search-q");
    if (!search) return;
    event.preventDefault(); // do not type the "/" into the box
    search.focus();
    search.select();
    return;
  }

  const rel = { ArrowLeft: "prev", ArrowRight: "next" }[event.key];
  if (!rel || event.shiftKey) return;
  const link = document.querySelector(`.pager a[rel="${rel}"]`);
  if (link) window.location.assign(link.href);
});
