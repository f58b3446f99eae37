"use strict";
// Starts Swagger UI on the API docs page from the settings in #swagger-ui's data- attributes.
// A static file, not an inline script, so the page needs no 'unsafe-inline' in its CSP.
(() => {
  const root = document.getElementById("swagger-ui");
  const csrfToken = () => {
    const cookie = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="));
    return cookie ? decodeURIComponent(cookie.slice("csrftoken=".length)) : "";
  };
  window.ui = SwaggerUIBundle({
    url: root.dataset.schemaUrl,
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // "Try it out" with a signed-in browser session sends the CSRF token on writes.
    requestInterceptor: (request) => {
      if (!["GET", "HEAD", undefined].includes(request.method)) {
        request.headers[root.dataset.csrfHeader] = csrfToken();
      }
      return request;
    },
    ...JSON.parse(root.dataset.settings),
  });
})();
