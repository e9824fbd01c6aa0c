// The site's editor (templates/chapters/edit/editor.html), on top of a form that works alone:
// - a live preview, rendered by the server's own pipeline (chapters/edit/preview.py) as the
//   editor types, shown in the page's own markup and styles;
// - a toolbar inserting Markdown, and the completion of [[wiki links]] from the titles of
//   every page (/edit/titles.json);
// - Ctrl/Cmd+S saves, Ctrl/Cmd+Enter previews at once, Ctrl/Cmd+B makes the selection bold;
// - the form saved as a draft on the server every few seconds while it changes, and once
//   more (navigator.sendBeacon) as the page is hidden or closed, so that a closed tab loses
//   nothing (chapters/edit/views.py, draft); the browser asks before leaving a form whose
//   text was not saved as the page;
// - images and files: dropped onto the text, pasted from the clipboard, or chosen with the
//   toolbar's "Image or file", in a window that asks for the title and alt text, uploads to
//   the media library (chapters/media/views.py, media_upload) or picks from it, and writes
//   the Markdown at the cursor.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const form = document.getElementById("editor");
  if (!form) return;
  const body = form.elements.namedItem("body");
  const token = form.elements.namedItem("csrfmiddlewaretoken").value;
  const preview = document.getElementById("preview");
  const broken = form.querySelector(".preview-broken");
  const status = form.querySelector(".autosave-status");
  const saveButton = form.querySelector("button[name=save]");
  const AUTOSAVE_EVERY = 3000; // milliseconds
  const PREVIEW_AFTER = 300; // milliseconds without typing

  function post(url, data) {
    return fetch(url, {
      method: "POST",
      headers: { "X-CSRFToken": token, Accept: "application/json" },
      body: data,
      credentials: "same-origin",
    });
  }

  // The live preview.
  let previewTimer = null;
  let previewed = body.value;
  // Previews may answer out of order (a long body, a loaded server): only the answer to the
  // latest one asked for is shown.
  let previewsAsked = 0;
  async function refreshPreview() {
    clearTimeout(previewTimer);
    const asked = ++previewsAsked;
    const text = body.value;
    const data = new URLSearchParams({ body: text, node: form.dataset.node });
    const response = await post(form.dataset.previewUrl, data);
    const result = await response.json();
    if (asked !== previewsAsked) return;
    previewed = text;
    broken.replaceChildren(
      ...(result.error ? [{ problem: result.error }] : result.broken).map((link) => {
        const item = document.createElement("li");
        item.textContent = link.text ? `${link.text}: ${link.problem}` : link.problem;
        return item;
      }),
    );
    // The endpoint returns render_markdown's output, sanitized by the server.
    preview.innerHTML = result.html || "";
    preview.dispatchEvent(new CustomEvent("preview-updated", { bubbles: true }));
  }
  body.addEventListener("input", () => {
    clearTimeout(previewTimer);
    previewTimer = setTimeout(refreshPreview, PREVIEW_AFTER);
  });
  form.querySelector("button[name=preview]").addEventListener("click", (event) => {
    event.preventDefault();
    refreshPreview();
  });

  // Keyboard shortcuts.
  form.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
    if (event.key === "s" || event.key === "S") {
      event.preventDefault();
      form.requestSubmit(saveButton);
    } else if (event.key === "Enter") {
      event.preventDefault();
      refreshPreview();
    } else if ((event.key === "b" || event.key === "B") && event.target === body) {
      event.preventDefault();
      insert("bold");
    }
  });

  // The toolbar: each button wraps the selection, or inserts an example to type over.
  function replaceSelection(text, selectFrom, selectTo) {
    const start = body.selectionStart;
    body.focus();
    if (!document.execCommand("insertText", false, text)) {
      body.setRangeText(text, start, body.selectionEnd, "end");
      body.dispatchEvent(new Event("input", { bubbles: true }));
    }
    body.setSelectionRange(start + selectFrom, start + selectTo);
  }
  function wrap(before, after, example) {
    const chosen = body.value.slice(body.selectionStart, body.selectionEnd) || example;
    replaceSelection(before + chosen + after, before.length, before.length + chosen.length);
  }
  function block(text, example) {
    const atLineStart = body.selectionStart === 0 || body.value[body.selectionStart - 1] === "\n";
    const lead = atLineStart ? "\n" : "\n\n";
    const at = lead.length + text.indexOf(example);
    replaceSelection(`${lead}${text}\n`, at, at + example.length);
  }
  function insert(kind) {
    const selected = body.value.slice(body.selectionStart, body.selectionEnd);
    switch (kind) {
      case "heading": {
        const lineStart = body.value.lastIndexOf("\n", body.selectionStart - 1) + 1;
        body.setSelectionRange(lineStart, lineStart);
        replaceSelection("## ", 3, 3);
        break;
      }
      case "bold":
        wrap("**", "**", "bold text");
        break;
      case "link": {
        const text = selected || "text";
        replaceSelection(`[${text}](https://)`, text.length + 3, text.length + 11);
        break;
      }
      case "wiki":
        if (selected) wrap("[[", "]]", "");
        else {
          replaceSelection("[[", 2, 2);
          complete();
        }
        break;
      case "code":
        if (selected.includes("\n")) wrap("```\n", "\n```", "");
        else wrap("`", "`", "code");
        break;
      case "math":
        wrap("$", "$", "x^2");
        break;
      case "callout":
        block('!!! note "Note"\n    Text of the callout.', "Text of the callout.");
        break;
      case "table":
        block("| Column | Column |\n| --- | --- |\n| Cell | Cell |", "Column");
        break;
      case "media":
        openMedia(null);
        break;
      default:
    }
  }
  const toolbar = form.querySelector(".editor-toolbar");
  toolbar.hidden = false;
  toolbar.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-insert]");
    if (button) insert(button.dataset.insert);
  });

  // The completion of [[wiki links]]: a list of the pages whose titles hold what is typed.
  const list = document.createElement("ul");
  list.id = "wiki-completion";
  list.className = "completion";
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "Pages to link to");
  list.hidden = true;
  body.after(list);
  body.setAttribute("aria-autocomplete", "list");
  body.setAttribute("aria-controls", list.id);
  let pages = null; // a promise of the list, fetched once
  let shown = [];
  let active = -1;
  function loadPages() {
    if (pages === null) {
      pages = fetch(form.dataset.titlesUrl, { credentials: "same-origin" }).then((response) =>
        response.ok ? response.json() : [],
      );
    }
    return pages;
  }
  function typedLink() {
    const before = body.value.slice(0, body.selectionStart);
    const match = /\[\[([^[\]|\n]*)$/.exec(before);
    return match ? match[1] : null;
  }
  function closeList() {
    list.hidden = true;
    list.replaceChildren();
    active = -1;
    body.removeAttribute("aria-activedescendant");
  }
  function choose(page) {
    const typed = typedLink();
    if (typed === null) return;
    const start = body.selectionStart - typed.length;
    const closed = body.value.slice(body.selectionStart, body.selectionStart + 2) === "]]";
    body.setSelectionRange(start, body.selectionStart + (closed ? 2 : 0));
    replaceSelection(`${page.link}]]`, page.link.length + 2, page.link.length + 2);
    closeList();
  }
  function mark(index) {
    const items = list.querySelectorAll("li");
    items.forEach((item, position) => item.setAttribute("aria-selected", position === index));
    active = index;
    if (items[index]) body.setAttribute("aria-activedescendant", items[index].id);
  }
  async function complete() {
    const typed = typedLink();
    if (typed === null) {
      closeList();
      return;
    }
    const wanted = typed.trim().toLowerCase();
    const found = (await loadPages())
      .filter((page) => page.label.toLowerCase().includes(wanted))
      .slice(0, 8);
    if (typedLink() !== typed) return; // typed on meanwhile
    list.replaceChildren(
      ...found.map((page, index) => {
        const item = document.createElement("li");
        item.id = `wiki-completion-${index}`;
        item.setAttribute("role", "option");
        item.textContent = page.label;
        item.addEventListener("mousedown", (event) => {
          event.preventDefault(); // keep the focus in the text
          choose(page);
        });
        return item;
      }),
    );
    list.hidden = !found.length;
    shown = found;
    mark(found.length ? 0 : -1);
  }
  body.addEventListener("input", complete);
  body.addEventListener("blur", closeList);
  body.addEventListener("keydown", (event) => {
    if (list.hidden) return;
    const count = list.children.length;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      mark((active + (event.key === "ArrowDown" ? 1 : count - 1)) % count);
    } else if (event.key === "Enter" || event.key === "Tab") {
      if (active < 0 || event.ctrlKey || event.metaKey) return;
      event.preventDefault();
      choose(shown[active]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      closeList();
    }
  });

  // The draft saved on the server while the form changes.
  const fields = () => {
    const data = new FormData(form);
    data.delete("csrfmiddlewaretoken");
    return new URLSearchParams(data).toString();
  };
  let saved = fields();
  let inflight = null;
  let submitting = false;
  async function autosave() {
    const now = fields();
    if (now === saved || inflight || submitting) return;
    const data = new FormData(form);
    inflight = post(form.dataset.draftUrl, data)
      .then((response) => (response.ok ? response.json() : Promise.reject(response)))
      .then((result) => {
        saved = now;
        status.textContent = result.message;
      })
      .catch(() => {
        status.textContent = "The draft could not be saved; your text is still here.";
      })
      .finally(() => {
        inflight = null;
      });
  }
  const autosaveTimer = setInterval(autosave, AUTOSAVE_EVERY);

  // Leaving: the draft goes out as the page is hidden or closed (a beacon outlives the page,
  // and carries the form's CSRF token), and the browser asks before leaving unsaved text.
  const opened = fields();
  function sendDraft() {
    if (submitting || fields() === saved) return;
    if (navigator.sendBeacon(form.dataset.draftUrl, new FormData(form))) saved = fields();
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") sendDraft();
  });
  window.addEventListener("pagehide", sendDraft);
  window.addEventListener("beforeunload", (event) => {
    if (submitting || fields() === opened) return;
    event.preventDefault();
    event.returnValue = ""; // older browsers ask only when this is set
  });
  form.addEventListener("submit", (event) => {
    if (submitting) return;
    submitting = true;
    clearInterval(autosaveTimer);
    if (inflight) {
      // Let a draft being saved land first: the save deletes it, and must come after it.
      event.preventDefault();
      const submitter = event.submitter;
      inflight.finally(() => form.requestSubmit(submitter));
    }
  });

  // Images and files: upload one (dropped, pasted or chosen) or pick one from the library.
  const dialog = document.getElementById("media-dialog");
  const uploadForm = document.getElementById("media-upload-form");
  const fileInput = document.getElementById("media-file");
  const titleInput = document.getElementById("media-title");
  const altInput = document.getElementById("media-alt");
  const mediaError = dialog.querySelector(".media-error");
  const search = document.getElementById("media-search");
  const picker = document.getElementById("media-picker");
  let cursor = [0, 0]; // the selection in the text when the window opened
  function insertMarkdown(markdown) {
    dialog.close();
    body.focus();
    body.setSelectionRange(...cursor);
    const atLineStart = body.selectionStart === 0 || body.value[body.selectionStart - 1] === "\n";
    const text = markdown.startsWith("!") && !atLineStart ? `\n\n${markdown}\n` : markdown;
    replaceSelection(text, text.length, text.length);
    refreshPreview();
  }
  function chooseFile(file) {
    if (file) {
      const chosen = new DataTransfer();
      chosen.items.add(file);
      fileInput.files = chosen.files;
    }
    const name = fileInput.files.length ? fileInput.files[0].name : "";
    titleInput.value = name.replace(/\.[^.]*$/, "");
    mediaError.textContent = "";
  }
  async function showLibrary() {
    const url = `${form.dataset.mediaUrl}?${new URLSearchParams({ q: search.value })}`;
    const response = await fetch(url, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    if (!response.ok) return;
    const { items } = await response.json();
    picker.replaceChildren(
      ...items.map((item) => {
        const entry = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        if (item.thumbnail) {
          const image = document.createElement("img");
          image.src = item.thumbnail;
          image.alt = "";
          button.append(image);
        }
        button.append(item.name);
        button.title = item.title;
        button.addEventListener("click", () => insertMarkdown(item.markdown));
        entry.append(button);
        return entry;
      }),
    );
  }
  function openMedia(file) {
    cursor = [body.selectionStart, body.selectionEnd];
    uploadForm.reset();
    chooseFile(file);
    dialog.showModal();
    (file ? altInput : fileInput).focus();
    showLibrary();
  }
  fileInput.addEventListener("change", () => chooseFile(null));
  let searchTimer = null;
  search.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(showLibrary, PREVIEW_AFTER);
  });
  dialog.querySelector("[data-close]").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => body.focus());
  uploadForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!fileInput.files.length) {
      mediaError.textContent = "Choose a file to upload.";
      return;
    }
    const data = new FormData(uploadForm);
    mediaError.textContent = "Uploading…";
    const response = await post(form.dataset.uploadUrl, data);
    const result = await response.json().catch(() => ({ error: "The upload failed." }));
    if (!response.ok || result.error) {
      mediaError.textContent = result.error || "The upload failed.";
      return;
    }
    insertMarkdown(result.markdown);
  });
  body.addEventListener("paste", (event) => {
    const file = event.clipboardData && event.clipboardData.files[0];
    if (!file) return;
    event.preventDefault();
    openMedia(file);
  });
  const carriesFiles = (event) => event.dataTransfer && event.dataTransfer.types.includes("Files");
  body.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    body.classList.add("dropping");
  });
  body.addEventListener("dragleave", () => body.classList.remove("dropping"));
  body.addEventListener("drop", (event) => {
    body.classList.remove("dropping");
    if (!carriesFiles(event) || !event.dataTransfer.files.length) return;
    event.preventDefault();
    const offset = body.value.length && document.caretPositionFromPoint
      ? document.caretPositionFromPoint(event.clientX, event.clientY)
      : null;
    if (offset && offset.offsetNode === body) body.setSelectionRange(offset.offset, offset.offset);
    openMedia(event.dataTransfer.files[0]);
  });

  if (previewed !== body.value) refreshPreview();
});
