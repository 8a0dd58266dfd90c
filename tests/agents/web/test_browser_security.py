"""The web app against hostile pages, in a real browser (headless Chromium through Playwright):
a page of another origin posts to the app the ways a browser lets any page (a cross-site form,
a no-cors fetch) and starts no game; a hostile name that resolves to this machine (DNS
rebinding, mapped in Chromium's resolver) is refused on every route; the app's own page
works under its Content-Security-Policy, with no violation reported.

Run with ``python -m pytest -m browser`` (docs/web.md: installing Chromium)."""

from __future__ import annotations

import shutil

import pytest

from agents.web.background import CHROMIUM

pytestmark = pytest.mark.browser

HOSTILE_PAGE = """<!doctype html>
<html><body>
<form id="form" method="POST" enctype="text/plain" action="{target}/api/play" target="sink">
  <input name='{{"game": "junqi", "x": "' value='"}}'>
</form>
<iframe name="sink"></iframe>
<script>
  fetch("{target}/api/play", {{method: "POST", mode: "no-cors",
        headers: {{"Content-Type": "text/plain"}}, body: '{{"game": "junqi"}}'}})
    .finally(() => fetch("{target}/api/play", {{method: "POST", mode: "no-cors",
        headers: {{"Content-Type": "application/x-www-form-urlencoded"}},
        body: "game=junqi"}}))
    .finally(() => {{ document.getElementById("form").submit(); document.title = "sent"; }});
</script>
</body></html>"""


@pytest.fixture(scope="module")
def chromium():
    pytest.importorskip("playwright", reason="the browser tests need playwright (not installed: "
                                              "the browser extra)")
    if shutil.which(CHROMIUM) is None:
        pytest.skip("the browser tests need Debian's chromium (not installed: apt-get install "
                    "chromium)")
    from playwright.sync_api import sync_playwright

    from agents.web.background import CHROMIUM_ARGS

    # evil.example resolves to this machine, as a rebinding name would.
    args = [*CHROMIUM_ARGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=args)
        yield browser
        browser.close()


@pytest.fixture
def served(tmp_path):
    from agents.web.app import create_app
    from agents.web.background import serve_in_thread

    app = create_app(runs_dir=tmp_path)
    with serve_in_thread(app) as url:
        yield app, url.rstrip("/")


def test_a_page_of_another_origin_starts_no_game(chromium, served):
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    from agents.web.background import serve_in_thread

    app, target = served
    hostile = Starlette(routes=[Route("/", lambda request: HTMLResponse(
        HOSTILE_PAGE.format(target=target)))])
    with serve_in_thread(hostile) as hostile_url:
        page = chromium.new_page()
        answers = []
        page.on("response", lambda response: response.url.startswith(target)
                and answers.append(response.status))
        page.goto(hostile_url)
        page.wait_for_function("document.title === 'sent'", timeout=30_000)
        page.wait_for_timeout(500)  # the form's post lands in the frame
        page.close()
    assert len(app.state.sessions) == 0
    assert answers and set(answers) <= {403, 415}, answers  # the form's post answered 403


def test_a_rebinding_name_is_refused_on_every_route(chromium, served):
    app, target = served
    port = target.rsplit(":", 1)[1]
    page = chromium.new_page()
    for route in ("/", "/api/games", "/api/runs"):
        response = page.goto(f"http://evil.example:{port}{route}")
        assert response.status == 421, route
    page.close()


def test_the_page_works_under_its_content_security_policy(chromium, served):
    app, target = served
    page = chromium.new_page()
    violations, errors = [], []
    page.on("console", lambda message: "Content Security Policy" in message.text
            and violations.append(message.text))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(target + "/")
    page.wait_for_selector("#play-game option", state="attached")
    page.select_option("#play-game", "tbw")
    page.click("#start")
    page.wait_for_function("() => /^Your move/.test(document.getElementById('play-status')"
                           ".textContent)", timeout=30_000)
    # The terrain legend's swatches are coloured through the style property the policy allows.
    colours = page.eval_on_selector_all(".swatch", "nodes => nodes.map(n => n.style.background)")
    assert colours and all(colours)
    assert violations == [] and errors == []
    assert len(app.state.sessions) == 1
    page.close()
