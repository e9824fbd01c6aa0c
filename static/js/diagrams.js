// Mermaid diagrams (```mermaid fences, chapters/markdown/mdx/diagrams.py), drawn in the
// browser. Loaded only on pages whose body has one. Each <pre class="mermaid"> holds the
// diagram's source, which readers without JavaScript see; here it is sent to the Mermaid
// frame (chapters/diagrams.py explains why Mermaid draws in a frame), and the SVG that comes
// back takes the <pre>'s place. The SVG is placed without its <style> and style attributes,
// which the page's Content-Security-Policy forbids; they are given back through CSSOM (a
// constructed stylesheet, element.style), which it does not govern. A diagram Mermaid cannot
// read keeps its source, with the first line of Mermaid's message above it. When every diagram is drawn (or
// given up), the body gets the class "diagrams-drawn"; the print page's Print button waits
// for it (js/page.js).
"use strict";

(() => {
  const script = document.currentScript;

  function place(pre, answer) {
    const box = pre.parentElement;
    if (answer.error) {
      const message = document.createElement("p");
      message.className = "diagram-message";
      // Mermaid's first line ("Parse error on line 4:"); the rest is a picture in ASCII.
      const first = answer.error.split("\n")[0].replace(/:$/, "");
      message.textContent = `Diagram not drawn: Mermaid could not read it: ${first}.`;
      box.classList.replace("diagram", "diagram-failed");
      box.prepend(message);
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
    if (answer.css) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(answer.css);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    }
    svg.setAttribute("role", "img");
    if (!svg.hasAttribute("aria-label")) svg.setAttribute("aria-label", "Diagram");
    pre.replaceWith(svg);
  }

  document.addEventListener("DOMContentLoaded", () => {
    const blocks = Array.from(document.querySelectorAll(".body pre.mermaid"));
    if (!blocks.length) return;
    const waiting = new Map(blocks.map((pre, index) => [`mermaid-diagram-${index + 1}`, pre]));
    const frame = document.createElement("iframe");
    frame.className = "mermaid-frame";
    frame.title = "Diagrams being drawn";
    frame.tabIndex = -1;
    frame.setAttribute("aria-hidden", "true");
    frame.src = script.dataset.frame;
    window.addEventListener("message", (event) => {
      if (event.origin !== window.location.origin || event.source !== frame.contentWindow) return;
      if (event.data.ready) {
        for (const [id, pre] of waiting) {
          frame.contentWindow.postMessage({ id, source: pre.textContent }, window.location.origin);
        }
        return;
      }
      const pre = waiting.get(event.data.id);
      if (!pre) return;
      waiting.delete(event.data.id);
      place(pre, event.data);
      if (!waiting.size) {
        frame.remove();
        document.body.classList.add("diagrams-drawn");
        document.dispatchEvent(new Event("diagrams-drawn"));
      }
    });
    document.body.append(frame);
  });
})();
