// Residual's few lines of behaviour that need the browser. Everything here is an enhancement:
// each page works without it. No inline script anywhere (the CSP forbids it).
(function () {
  "use strict";

  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  // Keyboard shortcuts: a visible button or link with data-key="1" (or "z", " ", "Enter") is
  // pressed by that key, unless the learner is typing in a field. data-key-in-field lets a key
  // through from a field too (Enter to check a typed answer).
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    var key = event.key === "Spacebar" ? " " : event.key;
    var inField = typing(event.target);
    var buttons = document.querySelectorAll("[data-key]");
    for (var i = 0; i < buttons.length; i++) {
      var button = buttons[i];
      var keys = button.getAttribute("data-key").split(",");
      var wanted = keys.indexOf(key) !== -1 || (key === " " && keys.indexOf("Space") !== -1);
      if (!wanted || button.disabled || button.offsetParent === null) continue;
      if (inField && !button.hasAttribute("data-key-in-field")) continue;
      if (inField && key === " ") continue;
      event.preventDefault();
      button.click();
      return;
    }
  });

  // A time zone picker with data-guess-timezone takes the browser's zone when it has none yet.
  function guessTimeZone(root) {
    var zone;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
    root.querySelectorAll("select[data-guess-timezone]").forEach(function (select) {
      var hint = document.getElementById(select.getAttribute("data-guess-timezone"));
      if (hint && zone) hint.textContent = "Your browser says " + zone + ".";
      if (!select.value || select.value === "UTC") {
        for (var i = 0; i < select.options.length; i++) {
          if (select.options[i].value === zone) { select.value = zone; break; }
        }
      }
    });
  }

  // After a fragment is swapped in, move focus to what it asks for (data-autofocus), so
  // keyboard and screen-reader users land on the feedback or the next card.
  function focusNew(root) {
    var target = root.querySelector("[data-autofocus]");
    if (!target) return;
    if (!target.hasAttribute("tabindex") && !/^(INPUT|TEXTAREA|SELECT|BUTTON|A)$/.test(target.tagName)) {
      target.setAttribute("tabindex", "-1");
    }
    target.focus({ preventScroll: false });
  }

  // Elapsed time on a question: filled into its form's hidden "elapsed_ms" when sent.
  function stampStart(root) {
    root.querySelectorAll("input[name='elapsed_ms']").forEach(function (input) {
      input.setAttribute("data-started", String(Date.now()));
    });
  }
  document.addEventListener("submit", function (event) {
    var input = event.target.querySelector && event.target.querySelector("input[name='elapsed_ms'][data-started]");
    if (input) input.value = String(Date.now() - Number(input.getAttribute("data-started")));
  }, true);
  document.addEventListener("htmx:configRequest", function (event) {
    var form = event.detail.elt && event.detail.elt.closest && event.detail.elt.closest("form");
    var input = form && form.querySelector("input[name='elapsed_ms'][data-started]");
    if (input) event.detail.parameters.elapsed_ms = String(Date.now() - Number(input.getAttribute("data-started")));
  });

  // A slider's live value: an <output> named by the slider's data-output follows it.
  function showValue(slider) {
    var name = slider && slider.getAttribute && slider.getAttribute("data-output");
    var output = name && document.getElementById(name);
    // Written as the server writes numbers: thousands separated, a true minus sign.
    if (output) output.textContent = Number(slider.value).toLocaleString("en-GB").replace("-", "\u2212");
  }
  document.addEventListener("input", function (event) {
    showValue(event.target);
  });

  // A slider whose end depends on another control: the hint beside it, swapped in with the
  // result, names the slider and its new end. A slider past its new end moves back to it
  // without an input event, so its shown value is written again.
  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll("[data-slider][data-max]").forEach(function (hint) {
      var slider = document.getElementById(hint.getAttribute("data-slider"));
      if (!slider) return;
      slider.max = hint.getAttribute("data-max");
      showValue(slider);
    });
  });

  // An interview answer's key points: the ticks suggest a rating (all: Good; more than half:
  // Hard; fewer: Again), and the choices beside it are named by the ratings they give. The
  // server works the rating out again from what is sent.
  var RATINGS = ["Again", "Hard", "Good", "Easy"];
  function suggestRating(form) {
    var boxes = form.querySelectorAll("input[name='covered']");
    var ticked = form.querySelectorAll("input[name='covered']:checked").length;
    var total = boxes.length;
    var suggested = ticked === total ? 2 : (2 * ticked > total ? 1 : 0);
    var line = form.querySelector("[data-suggestion]");
    if (line) {
      line.textContent = ticked + " of " + total + " covered: that suggests " + RATINGS[suggested] + ".";
      line.hidden = false;
    }
    form.querySelectorAll("input[name='adjust']").forEach(function (radio) {
      var step = { lower: -1, suggested: 0, higher: 1 }[radio.value] || 0;
      var rating = suggested + step;
      var label = radio.closest("label");
      var text = label && label.querySelector("span");
      var out = rating < 0;
      if (label) label.hidden = out;
      if (out && radio.checked) {
        var middle = form.querySelector("input[name='adjust'][value='suggested']");
        if (middle) middle.checked = true;
      }
      if (text && !out) text.textContent = RATINGS[rating] + (step === 0 ? " (suggested)" : "");
    });
  }
  document.addEventListener("change", function (event) {
    var form = event.target.closest && event.target.closest("[data-key-points]");
    if (form && event.target.name === "covered") suggestRating(form);
  });

  // The code editor: Tab indents by four spaces (Shift+Tab takes them back), Enter keeps the
  // line's indent; after Escape, Tab leaves the editor as usual.
  var leaving = false;
  document.addEventListener("keydown", function (event) {
    var box = event.target;
    if (!box || !box.hasAttribute || !box.hasAttribute("data-code-editor")) return;
    if (event.key === "Escape") { leaving = true; return; }
    if (event.key === "Tab" && !leaving && !event.ctrlKey && !event.altKey && !event.metaKey) {
      event.preventDefault();
      var start = box.selectionStart, text = box.value;
      var lineStart = text.lastIndexOf("\n", start - 1) + 1;
      if (event.shiftKey) {
        var spaces = text.slice(lineStart, lineStart + 4).match(/^ */)[0].length;
        box.setRangeText("", lineStart, lineStart + spaces, "preserve");
        box.selectionStart = box.selectionEnd = Math.max(lineStart, start - spaces);
      } else {
        box.setRangeText("    ", start, box.selectionEnd, "end");
      }
    } else if (event.key === "Enter" && !event.shiftKey) {
      var at = box.selectionStart;
      var from = box.value.lastIndexOf("\n", at - 1) + 1;
      var indent = box.value.slice(from, at).match(/^ */)[0];
      if (/:\s*$/.test(box.value.slice(from, at))) indent += "    ";
      event.preventDefault();
      box.setRangeText("\n" + indent, at, box.selectionEnd, "end");
    }
    if (event.key !== "Escape") leaving = false;
  });

  // A mock interview's clock: the time since the question was first shown, counted up.
  function tick() {
    document.querySelectorAll("[data-clock-since]").forEach(function (clock) {
      var since = Number(clock.getAttribute("data-clock-since")) * 1000;
      var seconds = Math.max(0, Math.floor((Date.now() - since) / 1000));
      var text = Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
      if (clock.textContent !== text) clock.textContent = text;
      var over = seconds > 60 * Number(clock.getAttribute("data-clock-minutes") || 0);
      clock.classList.toggle("mock-clock--over", over);
    });
  }
  setInterval(tick, 1000);

  function enhance(root) {
    guessTimeZone(root);
    stampStart(root);
  }

  // After any swap, from the document: an outerHTML swap leaves its old target detached.
  function named() {
    document.querySelectorAll("[data-key-points]").forEach(suggestRating);
    tick();
  }
  document.addEventListener("htmx:afterSettle", named);
  document.addEventListener("DOMContentLoaded", named);

  document.addEventListener("DOMContentLoaded", function () {
    enhance(document);
    var summary = document.querySelector(".error-summary[data-autofocus]");
    if (summary) summary.focus();
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    enhance(event.detail.target);
    focusNew(event.detail.target);
  });
})();

// Glossary terms open their card with the native popover; a browser without it follows the
// term to its entry in the lesson's glossary instead.
(function () {
  "use strict";
  if (typeof HTMLElement === "undefined" || HTMLElement.prototype.hasOwnProperty("popover")) return;
  document.addEventListener("click", function (event) {
    var term = event.target.closest && event.target.closest("button[data-glossary]");
    if (term) window.location.hash = term.getAttribute("data-glossary").slice(1);
  });
})();
