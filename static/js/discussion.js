// The count beside a chapter's "Discussion" link. The chapter's page is the same for every
// reader and is not rendered again when someone comments (chapters/discussion/), so the
// count is read here from /discussion/count/<path>/ (data-count-url); without JavaScript
// the link reads "Discussion" and the thread shows its count.
"use strict";

document.addEventListener("DOMContentLoaded", async () => {
  const link = document.querySelector("a.discussion-link[data-count-url]");
  if (!link) return;
  try {
    const response = await fetch(link.dataset.countUrl, { credentials: "omit" });
    if (!response.ok) return;
    const { count } = await response.json();
    link.querySelector(".discussion-count").textContent = ` (${count})`;
  } catch {
    // Offline or refused: the link still leads to the thread.
  }
});
