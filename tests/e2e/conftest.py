"""Every browser test runs under the site's Content-Security-Policy and fails on any violation.

The ``browser`` fixture of tests/conftest.py is wrapped: each new context records the page's
``securitypolicyviolation`` events and chromium's own "Content Security Policy" console errors, and
after the test the list must be empty (issue 30: the pages work with no inline script or style).
"""

from __future__ import annotations

import pytest

LISTEN = """document.addEventListener("securitypolicyviolation", (e) =>
  console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`));"""


@pytest.fixture
def csp_violations():
    return []


@pytest.fixture
def browser(browser, csp_violations):
    new_context = browser.new_context

    def watched_context(*args, **kwargs):
        context = new_context(*args, **kwargs)
        context.add_init_script(LISTEN)

        def on_console(message):
            text = message.text
            if "CSP violation" in text or "Content Security Policy" in text:
                csp_violations.append(text)

        context.on("console", on_console)
        return context

    browser.new_context = watched_context
    yield browser
    assert csp_violations == [], "Content-Security-Policy violations:\n" + "\n".join(csp_violations)
