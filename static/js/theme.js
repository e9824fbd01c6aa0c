// Dark mode. The dark stylesheets (link[data-dark]) apply when the system asks for dark
// colours; the header's "Dark mode" button switches to the other colours, and the choice is
// remembered in localStorage ("theme": "dark" or "light") for as long as it differs from the
// system's. Loaded in <head> without defer, so a remembered choice is applied before the page
// is first drawn.
"use strict";

(() => {
  const systemDark = window.matchMedia("(prefers-color-scheme: dark)");
  const media = {
    dark: "screen",
    light: "not all",
    system: "screen and (prefers-color-scheme: dark)",
  };

  function choice() {
    try {
      return localStorage.getItem("theme");
    } catch {
      return null; // storage refused (e.g. cookies blocked): follow the system
    }
  }

  function remember(theme) {
    try {
      if (theme === (systemDark.matches ? "dark" : "light")) localStorage.removeItem("theme");
      else localStorage.setItem("theme", theme);
    } catch {
      // Not remembered, but still applied to this page.
    }
  }

  function apply(theme) {
    for (const link of document.querySelectorAll("link[data-dark]")) {
      link.media = media[theme] || media.system;
    }
  }

  const isDark = () => (choice() || (systemDark.matches ? "dark" : "light")) === "dark";

  apply(choice());
  // Say, before the page is first drawn, that scripts run: wiki.css then shows the controls
  // they drive (this button, the filter and the phone's Contents button, js/toc.js) and
  // lays the phone's contents out as a drawer, so nothing moves once the scripts have run.
  document.documentElement.classList.add("js");

  document.addEventListener("DOMContentLoaded", () => {
    const button = document.querySelector(".theme-toggle");
    if (!button) return;
    const show = () => button.setAttribute("aria-pressed", String(isDark()));
    button.addEventListener("click", () => {
      const theme = isDark() ? "light" : "dark";
      remember(theme);
      apply(theme);
      show();
    });
    systemDark.addEventListener("change", show);
    show();
  });
})();
