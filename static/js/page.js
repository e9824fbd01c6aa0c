// A page's reading aids: "On this page" marks the heading being read; a printout names the
// page's full URL and the date, and the full URL of each link (print.css). Without
// JavaScript the list of headings still links to each, and a printout names the page's URL
// without its query string and each link's href as written.
"use strict";

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

document.addEventListener("DOMContentLoaded", () => {
  const nav = document.querySelector(".on-this-page");
  if (nav) followHeadings(nav);
  prepareForPrint();
  window.addEventListener("beforeprint", prepareForPrint);
  const print = document.querySelector(".print-button");
  if (print) {
    print.addEventListener("click", () => window.print());
    print.hidden = false;
  }
});
