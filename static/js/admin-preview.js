// Live preview of a node's body in the admin's change form.
// Posts the body to the admin's preview endpoint (the site's own Markdown pipeline and
// sanitizer) as the editor types, and shows the result and the body's broken links.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const panel = document.getElementById("body-preview");
  const body = document.getElementById("id_body");
  if (!panel || !body) return;
  const token = body.form.querySelector("[name=csrfmiddlewaretoken]").value;
  const output = panel.querySelector(".preview-body");
  const broken = panel.querySelector(".preview-broken");
  let timer = null;
  // Previews may answer out of order: only the answer to the latest one asked for is shown.
  let asked = 0;

  async function refresh() {
    const request = ++asked;
    const data = new URLSearchParams({ body: body.value, node: panel.dataset.node });
    const response = await fetch(panel.dataset.url, {
      method: "POST",
      headers: { "X-CSRFToken": token },
      body: data,
      credentials: "same-origin",
    });
    const result = await response.json();
    if (request !== asked) return;
    broken.replaceChildren(
      ...(result.error ? [{ problem: result.error }] : result.broken).map((link) => {
        const item = document.createElement("li");
        item.textContent = link.text ? `${link.text}: ${link.problem}` : link.problem;
        return item;
      }),
    );
    // The endpoint returns render_markdown's output, already sanitized by the server.
    output.innerHTML = result.html || "";
    panel.hidden = false;
  }

  body.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(refresh, 400);
  });
  refresh();
});
