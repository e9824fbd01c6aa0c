// The outline (templates/chapters/edit/outline.html), on top of forms that work alone:
// - a section's branch opens in place, its rows fetched once (?part=children);
// - a page is dragged by its handle and dropped before, after or into another;
// - on a focused handle, Alt+↑ and Alt+↓ move the page up and down, Alt+→ into the section
//   above it, Alt+← out of its section.
// Each move is posted as the forms post it (chapters/edit/outline.py), asking for JSON: a
// move made is made on the page too, a move proposed for review or refused is only told.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const tree = document.querySelector(".outline-tree");
  if (!tree) return;
  const status = document.getElementById("outline-status");
  const token = document.querySelector("input[name=csrfmiddlewaretoken]").value;
  const KEYS = { ArrowUp: "up", ArrowDown: "down", ArrowRight: "in", ArrowLeft: "out" };

  function say(message, link) {
    status.replaceChildren(message);
    if (link) {
      const anchor = Object.assign(document.createElement("a"), { href: link });
      anchor.textContent = "See the change";
      status.append(" ", anchor);
    }
  }

  // A branch: opened and closed in place, its rows fetched the first time.
  async function toggle(link, open) {
    const row = link.closest(".outline-row");
    const branch = document.getElementById(link.getAttribute("aria-controls"));
    const opening = open ?? link.getAttribute("aria-expanded") !== "true";
    if (opening && !branch.dataset.loaded) {
      const response = await fetch(`${link.href}?part=children`, { credentials: "same-origin" });
      if (!response.ok) return say("The section could not be opened: try again.");
      branch.innerHTML = await response.text(); // the server's own template
      branch.dataset.loaded = "1";
    }
    branch.hidden = !opening;
    link.setAttribute("aria-expanded", String(opening));
    row.classList.toggle("open", opening);
  }
  tree.addEventListener("click", (event) => {
    const link = event.target.closest(".outline-toggle");
    if (!link) return;
    event.preventDefault();
    toggle(link);
  });

  // A move: posted; where it was made, the row goes where the server put the page.
  async function send(row, fields) {
    const data = new FormData();
    data.append("csrfmiddlewaretoken", token);
    data.append("node", row.dataset.id);
    for (const [name, value] of Object.entries(fields)) data.append(name, value);
    const response = await fetch(window.location.pathname, {
      method: "POST",
      headers: { "X-CSRFToken": token, Accept: "application/json" },
      body: data,
      credentials: "same-origin",
    });
    const result = await response.json().catch(() => ({ message: "The move failed: try again." }));
    say(result.message, result.review);
    if (result.moved) {
      await place(row, document.getElementById(`outline-${result.target}`), result.position);
    }
    // The row itself, or the one drawn again in its new branch, keeps the focus.
    document.getElementById(`outline-${row.dataset.id}`)?.querySelector(".outline-handle").focus();
  }

  async function place(row, target, position) {
    if (!target) return window.location.reload(); // moved out of what this page shows
    if (position === "left") target.before(row);
    else if (position === "right") target.after(row);
    else {
      const link = target.querySelector(":scope > .outline-line .outline-toggle");
      const branch = target.querySelector(":scope > .outline-branch");
      if (link && branch.dataset.loaded) branch.append(row);
      else {
        row.remove();
        if (link) await toggle(link, true);
        else window.location.reload(); // the section gets its first page: draw it again
        return;
      }
      if (link) await toggle(link, true);
    }
  }

  tree.addEventListener("keydown", (event) => {
    const handle = event.target.closest(".outline-handle");
    if (!handle || !event.altKey || !(event.key in KEYS)) return;
    event.preventDefault();
    send(handle.closest(".outline-row"), { action: KEYS[event.key] });
  });

  // Drag and drop: the top third of a row puts the page before it, the bottom third after,
  // the middle of a section's row into it.
  let dragged = null;
  tree.addEventListener("dragstart", (event) => {
    if (!event.target.closest?.(".outline-handle")) return event.preventDefault();
    dragged = event.target.closest(".outline-row");
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", dragged.dataset.title);
    dragged.classList.add("dragging");
  });
  function dropPlace(event) {
    const row = event.target.closest(".outline-row");
    if (!row || !dragged || row === dragged || dragged.contains(row)) return null;
    const box = row.querySelector(".outline-line").getBoundingClientRect();
    const at = (event.clientY - box.top) / box.height;
    if (row.dataset.kind === "section" && at > 1 / 3 && at < 2 / 3) return [row, "last-child"];
    return [row, at < 0.5 ? "left" : "right"];
  }
  function clearMarks() {
    for (const marked of tree.querySelectorAll("[data-drop]")) delete marked.dataset.drop;
  }
  tree.addEventListener("dragover", (event) => {
    const found = dropPlace(event);
    clearMarks();
    if (!found) return;
    event.preventDefault();
    found[0].dataset.drop = found[1];
  });
  tree.addEventListener("drop", (event) => {
    const found = dropPlace(event);
    clearMarks();
    if (!found) return;
    event.preventDefault();
    send(dragged, { action: "drop", target: found[0].dataset.id, position: found[1] });
  });
  tree.addEventListener("dragend", () => {
    clearMarks();
    dragged?.classList.remove("dragging");
    dragged = null;
  });
});
