// The Mermaid frame (chapters/diagrams.py): draws the diagrams its parent page sends, one
// message each ({id, source}), and answers with the SVG, its <style> and its elements'
// style attributes taken out ({id, svg, css, styles}) for js/diagrams.js to put back through
// CSSOM; or with {id, error}. Only messages from the wiki's own origin are read. Labels are
// SVG text, not HTML in a foreignObject, so that they print and read the same everywhere.
"use strict";

mermaid.initialize({
  startOnLoad: false,
  securityLevel: "strict",
  theme: "neutral",
  htmlLabels: false,
  flowchart: { htmlLabels: false },
});

async function draw(id, source) {
  const { svg } = await mermaid.render(id, source);
  const holder = document.createElement("div");
  holder.innerHTML = svg;
  const root = holder.firstElementChild;
  const css = Array.from(root.querySelectorAll("style"), (style) => {
    style.remove();
    return style.textContent;
  }).join("\n");
  const styles = [];
  for (const element of [root, ...root.querySelectorAll("[style]")]) {
    if (!element.hasAttribute("style")) continue;
    styles.push(element.getAttribute("style"));
    element.removeAttribute("style");
    element.setAttribute("data-style", String(styles.length - 1));
  }
  return { id, svg: root.outerHTML, css, styles };
}

window.addEventListener("message", async (event) => {
  if (event.origin !== window.location.origin || event.source !== window.parent) return;
  const { id, source } = event.data;
  let answer;
  try {
    answer = await draw(id, source);
  } catch (error) {
    answer = { id, error: String((error && error.message) || error) };
  }
  window.parent.postMessage(answer, window.location.origin);
});
window.parent.postMessage({ ready: true }, window.location.origin);
