// Edit conflicts shown side by side (templates/chapters/edit/_conflicts.html), in the site's
// editor and the admin's change form: "Use mine", "Use theirs" and "Use both" resolve the
// conflict in the text at once, as the server would (chapters/edit/merge.py, resolve), instead
// of submitting the form. Without this script the buttons submit it and the server resolves.
"use strict";

(() => {
  const START = "<<<<<<< yours";
  const MIDDLE = "=======";
  const END = ">>>>>>> theirs";

  // Return the text with its index-th marked conflict replaced by the chosen lines.
  function resolve(text, index, choice) {
    const lines = text.replace(/\r\n?/g, "\n").split("\n");
    let start = null;
    let middle = null;
    let found = 0;
    for (let i = 0; i < lines.length; i += 1) {
      if (lines[i] === START) {
        start = i;
        middle = null;
      } else if (lines[i] === MIDDLE && start !== null && middle === null) {
        middle = i;
      } else if (lines[i] === END && middle !== null) {
        if (found === index) {
          const yours = lines.slice(start + 1, middle);
          const theirs = lines.slice(middle + 1, i);
          const chosen = { yours, theirs, both: [...yours, ...theirs] }[choice];
          return [...lines.slice(0, start), ...chosen, ...lines.slice(i + 1)].join("\n");
        }
        found += 1;
        start = null;
        middle = null;
      }
    }
    return text;
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest(".conflict-choices button[name=resolve]");
    if (!button) return;
    const body = button.form && button.form.elements.namedItem("body");
    if (!body) return;
    event.preventDefault();
    const [index, choice] = button.value.split(":");
    body.value = resolve(body.value, Number(index), choice);
    body.dispatchEvent(new Event("input", { bubbles: true }));
    const section = button.closest(".conflicts");
    button.closest(".conflict").remove();
    const left = section.querySelectorAll(".conflict");
    left.forEach((conflict, position) => {
      conflict.dataset.conflict = position;
      conflict.querySelectorAll("button[name=resolve]").forEach((other) => {
        other.value = `${position}:${other.value.split(":")[1]}`;
      });
    });
    if (!left.length) section.hidden = true;
  });
})();
