// Mermaid diagrams (```mermaid fences, chapters/markdown/mdx/diagrams.py), drawn in the
// browser. Loaded only on pages whose body has one, and in the editor, whose preview may. Each
// <pre class="mermaid"> holds the diagram's source, which readers without JavaScript see;
// here it is sent to the Mermaid frame (chapters/diagrams.py explains why Mermaid draws in a
// frame), and the SVG that comes back takes the <pre>'s place. The SVG is placed without its
// <style> and style attributes, which the page's Content-Security-Policy forbids; they are
// given back through CSSOM (a constructed stylesheet, element.style), which it does not
// govern. A diagram Mermaid cannot read keeps its source, with the first line of Mermaid's
// message above it. When every diagram sent is drawn (or given up), the frame goes and the
// body gets the class "diagrams-drawn" (the print page's Print button waits for it,
// js/page.js); a new preview (the editor's "preview-updated") starts a frame again.
"use strict";

(() => {
  const script = document.currentScript;
  const waiting = new Map(); // id -> <pre>, sent or to be sent
  const sheets = new Map(); // id -> the constructed stylesheet of a diagram placed
  let frame = null;
  let ready = false;
  let count = 0;

  function send(id, pre) {
    frame.contentWindow.postMessage({ id, source: pre.textContent }, window.location.origin);
  }

  function fail(pre, error) {
    const box = pre.parentElement;
    const message = document.createElement("p");
    message.className = "diagram-message";
    // Mermaid's first line ("Parse error on line 4:"); the rest is a picture in ASCII.
    const first = error.split("\n")[0].replace(/:$/, "");
    message.textContent = `Diagram not drawn: Mermaid could not read it: ${first}.`;
    box.classList.replace("diagram", "diagram-failed");
    box.prepend(message);
  }

  // Keep the stylesheets of the diagrams still in the page only (the editor's preview
  // replaces its diagrams at every change).
  function adopt(id, css) {
    for (const [placed, sheet] of sheets) {
      if (document.getElementById(placed)) continue;
      sheets.delete(placed);
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
    }
    if (!css) return;
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    sheets.set(id, sheet);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }

  function place(pre, answer) {
    if (answer.error) {
      fail(pre, answer.error);
      return;
    }
    const parsed = new DOMParser().parseFromString(answer.svg, "image/svg+xml");
    const svg = document.importNode(parsed.documentElement, true);
    for (const forbidden of svg.querySelectorAll("script, foreignObject")) forbidden.remove();
    for (const element of [svg, ...svg.querySelectorAll("*")]) {
      for (const attribute of Array.from(element.attributes)) {
        if (/^on/i.test(attribute.name)) element.removeAttribute(attribute.name);
      }
      const index = element.getAttribute("data-style");
      if (index !== null) {
        element.removeAttribute("data-style");
        element.style.cssText = answer.styles[Number(index)] || "";
      }
    }
    // At its own width, as Graphviz's are: a wide one scrolls in its box (wiki.css), rather
    // than shrinking to unreadable text on a phone; print.css fits it to the paper.
    const width = svg.viewBox.baseVal && svg.viewBox.baseVal.width;
    if (width) {
      svg.style.maxWidth = "none";
      svg.style.width = `${Math.ceil(width)}px`;
    }
    svg.setAttribute("role", "img");
    if (!svg.hasAttribute("aria-label")) svg.setAttribute("aria-label", "Diagram");
    pre.replaceWith(svg);
    adopt(answer.id, answer.css);
  }

  function answered(event) {
    if (!frame || event.origin !== window.location.origin) return;
    if (event.source !== frame.contentWindow) return;
    if (event.data.ready) {
      ready = true;
      for (const [id, pre] of waiting) send(id, pre);
      return;
    }
    const pre = waiting.get(event.data.id);
    if (!pre) return;
    waiting.delete(event.data.id);
    if (pre.isConnected) place(pre, event.data);
    if (waiting.size) return;
    frame.remove();
    frame = null;
    ready = false;
    document.body.classList.add("diagrams-drawn");
    document.dispatchEvent(new Event("diagrams-drawn"));
  }

  function draw(root) {
    const selector = root === document ? ".body pre.mermaid" : "pre.mermaid";
    for (const pre of root.querySelectorAll(selector)) {
      count += 1;
      const id = `mermaid-diagram-${count}`;
      waiting.set(id, pre);
      if (ready) send(id, pre);
    }
    if (!waiting.size || frame) return;
    frame = document.createElement("iframe");
    frame.className = "mermaid-frame";
    frame.title = "Diagrams being drawn";
    frame.tabIndex = -1;
    frame.setAttribute("aria-hidden", "true");
    frame.src = script.dataset.frame;
    document.body.append(frame);
  }

  window.addEventListener("message", answered);
  document.addEventListener("DOMContentLoaded", () => draw(document));
  document.addEventListener("preview-updated", (event) => draw(event.target));
})();
