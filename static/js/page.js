// A page's reading aids: "On this page" marks the heading being read; each block of code
// gets a Copy button; a table, formula or code that scrolls sideways takes the focus; a printout names the page's full URL and the date, and the full URL of
// each link (print.css). Without JavaScript the list of headings still links to each, code
// keeps its language's label (written by the server), and a printout names the page's URL
// without its query string and each link's href as written.
"use strict";

// Copy with the Clipboard API where the page may (HTTPS, localhost), else through a selected
// text area and the older copy command.
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "visually-hidden";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("The browser refused to copy.");
}

// A Copy button in each block of code of a body (of the page, or of the editor's preview
// when it is drawn again: it shows the page as it will be), in the label's bar or, without
// a label, in the room wiki.css keeps above the code, so nothing moves; it says "Copied" for
// a moment (announced to screen readers through its live region). A block shown without
// highlighting (chapters.markdown's fallback) gets its language's label here, from its
// code's class. A block of SHORT_CODE_LINES lines or fewer is marked "code-short", which
// print.css keeps on one sheet (the count chapters/markdown/printing.py marks by).
const SHORT_CODE_LINES = 25;

function addCopyButtons(root) {
  // A Mermaid diagram's source (js/diagrams.js draws it) is no code to copy.
  const blocks = root === document ? ".body pre:not(.mermaid)" : "pre:not(.mermaid)";
  for (const pre of root.querySelectorAll(blocks)) {
    const code = pre.querySelector("code");
    let block = pre.parentElement;
    if (!block.classList.contains("highlight")) {
      block = document.createElement("div");
      pre.before(block);
      block.append(pre);
      const language = code && /(?:^|\s)language-(\S+)/.exec(code.className);
      if (language && language[1] !== "text") {
        const label = document.createElement("span");
        label.className = "filename";
        label.textContent = language[1];
        block.prepend(label);
      }
    }
    block.classList.add("code-block");
    if ((code || pre).textContent.replace(/\n$/, "").split("\n").length <= SHORT_CODE_LINES) {
      block.classList.add("code-short");
    }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "code-copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy the code");
    const status = document.createElement("span");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    let timer = null;
    button.addEventListener("click", async () => {
      let said;
      try {
        await copyText((code || pre).textContent);
        said = "Copied";
      } catch {
        said = "Not copied";
      }
      button.textContent = said;
      status.textContent = said === "Copied" ? "Code copied" : "The code was not copied";
      clearTimeout(timer);
      timer = setTimeout(() => {
        button.textContent = "Copy";
        status.textContent = "";
      }, 2000);
    });
    pre.before(button, status);
  }
}

const DIAGRAMS_WAIT_MS = 10000;

function prepareForPrint() {
  const date = document.querySelector(".print-date");
  if (date) {
    const now = new Date();
    const time = date.querySelector("time");
    time.dateTime = now.toISOString().slice(0, 10);
    time.textContent = now.toLocaleDateString("en-US", {
      year: "numeric",
      month: "short",
      day: "numeric",
    });
    date.hidden = false;
  }
  const url = document.querySelector(".print-url");
  if (url) url.textContent = window.location.href;
  for (const link of document.querySelectorAll("main a[href]")) {
    if (!link.getAttribute("href").startsWith("#")) link.dataset.printHref = link.href;
  }
}

// Mark, in "On this page", the last heading that has scrolled above a quarter of the window
// (the first one before any has); at the very end of the page, the last heading. Checked at
// most once a frame while scrolling.
function followHeadings(nav) {
  const links = Array.from(nav.querySelectorAll('a[href^="#"]'));
  const headings = links.map((link) => document.getElementById(decodeURIComponent(link.hash.slice(1))));
  if (headings.some((heading) => heading === null)) return;
  let marked = null;
  let pending = false;

  function update() {
    pending = false;
    const line = window.innerHeight / 4;
    let index = 0;
    headings.forEach((heading, i) => {
      if (heading.getBoundingClientRect().top <= line) index = i;
    });
    const end = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
    if (end && window.scrollY > 0) index = headings.length - 1;
    if (marked === links[index]) return;
    if (marked) marked.removeAttribute("aria-current");
    marked = links[index];
    marked.setAttribute("aria-current", "true");
  }

  window.addEventListener(
    "scroll",
    () => {
      if (!pending) {
        pending = true;
        window.requestAnimationFrame(update);
      }
    },
    { passive: true },
  );
  window.addEventListener("resize", update);
  update();
}

// A table, formula, diagram or block of code wider than the text scrolls in its own box (wiki.css):
// while it does, it is a Tab stop, so that the keyboard can scroll it too (WCAG 2.1.1; axe's
// scrollable-region-focusable). Checked again when the window's width changes and when the
// editor's preview is drawn again.
const SCROLLING_BOXES = '.body table, .body math[display="block"], .body pre, .body .diagram';

function reachScrollingBoxes() {
  for (const box of document.querySelectorAll(SCROLLING_BOXES)) {
    if (box.scrollWidth > box.clientWidth) box.tabIndex = 0;
    else box.removeAttribute("tabindex");
  }
}

document.addEventListener("DOMContentLoaded", () => {
  reachScrollingBoxes();
  let width = window.innerWidth;
  window.addEventListener("resize", () => {
    if (window.innerWidth !== width) reachScrollingBoxes();
    width = window.innerWidth;
  });
  const nav = document.querySelector(".on-this-page");
  if (nav) followHeadings(nav);
  addCopyButtons(document);
  document.addEventListener("diagrams-drawn", reachScrollingBoxes); // js/diagrams.js
  document.addEventListener("preview-updated", (event) => {
    addCopyButtons(event.target);
    reachScrollingBoxes();
  });
  // Only when printing (or when print styles are shown), so the page itself stays as served.
  window.addEventListener("beforeprint", prepareForPrint);
  window.matchMedia("print").addEventListener("change", (event) => {
    if (event.matches) prepareForPrint();
  });
  const print = document.querySelector(".print-button");
  if (print) {
    // Mermaid's diagrams (js/diagrams.js) are drawn before the page prints; after
    // DIAGRAMS_WAIT_MS it prints anyway, with the source of those not drawn.
    print.addEventListener("click", () => {
      const drawn = document.body.classList.contains("diagrams-drawn");
      if (drawn || !document.querySelector(".body pre.mermaid")) {
        window.print();
        return;
      }
      const go = () => {
        clearTimeout(timer);
        document.removeEventListener("diagrams-drawn", go);
        window.print();
      };
      const timer = setTimeout(go, DIAGRAMS_WAIT_MS);
      document.addEventListener("diagrams-drawn", go);
    });
    print.hidden = false;
  }
});
