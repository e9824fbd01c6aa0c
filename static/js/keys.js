// Keyboard shortcuts: the left and right arrow keys go to the previous and next chapter
// (the links of the chapter's pager), "/" moves to the search box in the header, "d" presses
// the chapter's "Mark as done" (js/progress.js), "?" opens
// the sheet of every shortcut (the editor's too, on its page). Keys typed into a field, and
// keys with a modifier (Alt+Left is the browser's Back), are left alone.
"use strict";

const SHORTCUTS = [
  ["/", "Search"],
  ["←", "Previous chapter"],
  ["→", "Next chapter"],
  ["D", "Mark the chapter as done, or not done"],
  ["?", "This list of shortcuts"],
];
const EDITOR_SHORTCUTS = [
  ["Ctrl+S", "Save (⌘+S on a Mac)"],
  ["Ctrl+Enter", "Preview at once"],
  ["Ctrl+B", "Bold"],
  ["[[", "Link to a chapter by its title"],
];

// The sheet: a modal dialog, built once, closed with Escape or its button.
function shortcutSheet() {
  let sheet = document.getElementById("shortcut-sheet");
  if (sheet) return sheet;
  sheet = document.createElement("dialog");
  sheet.id = "shortcut-sheet";
  sheet.className = "shortcut-sheet";
  sheet.setAttribute("aria-labelledby", "shortcut-sheet-title");
  const title = document.createElement("h2");
  title.id = "shortcut-sheet-title";
  title.textContent = "Keyboard shortcuts";
  const list = document.createElement("dl");
  const editing = document.getElementById("editor") ? EDITOR_SHORTCUTS : [];
  for (const [keys, what] of [...SHORTCUTS, ...editing]) {
    const key = document.createElement("dt");
    key.append(Object.assign(document.createElement("kbd"), { textContent: keys }));
    list.append(key, Object.assign(document.createElement("dd"), { textContent: what }));
  }
  const close = Object.assign(document.createElement("button"), { type: "button" });
  close.textContent = "Close";
  close.addEventListener("click", () => sheet.close());
  sheet.append(title, list, close);
  document.body.append(sheet);
  return sheet;
}

document.addEventListener("keydown", (event) => {
  if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
  if (event.target.closest("input, textarea, select, [contenteditable]")) return;

  if (event.key === "?") {
    event.preventDefault();
    shortcutSheet().showModal();
    return;
  }
  if (event.key === "/") {
    const search = document.getElementById("site-search-q");
    if (!search) return;
    event.preventDefault(); // do not type the "/" into the box
    search.focus();
    search.select();
    return;
  }

  if (event.key === "d" || event.key === "D") {
    const button = document.querySelector(".chapter-done .done-button");
    if (!button || button.disabled) return;
    event.preventDefault();
    button.click();
    return;
  }

  const rel = { ArrowLeft: "prev", ArrowRight: "next" }[event.key];
  if (!rel || event.shiftKey) return;
  const link = document.querySelector(`.pager a[rel="${rel}"]`);
  if (link) window.location.assign(link.href);
});
