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

  function enhance(root) {
    guessTimeZone(root);
    stampStart(root);
  }

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
