"""The web app in a real browser: headless Chromium (Debian's ``chromium`` package) driven by
Playwright against the app served by uvicorn. A whole game of each game against ``random``,
played by clicking; a Junqi layout arranged by drag and drop; a recorded game replayed, stepped,
scrubbed and autoplayed, from everything and from one player's view. Screenshots go to the
test's temporary folder (``scripts/web_screenshots.py`` makes the ones in docs/).

Run with ``python -m pytest -m browser`` (docs/web.md: installing Chromium)."""

from __future__ import annotations

import random
import shutil

import pytest

from agents.web.background import CHROMIUM

pytestmark = pytest.mark.browser

@pytest.fixture(scope="module")
def page(written_runs, tmp_path_factory):
    pytest.importorskip("playwright", reason="the browser tests need playwright (not installed: "
                                              "the browser extra)")
    if shutil.which(CHROMIUM) is None:
        pytest.skip("the browser tests need Debian's chromium (not installed: apt-get install "
                    "chromium)")
    from playwright.sync_api import sync_playwright

    from agents.web.app import create_app
    from agents.web.background import CHROMIUM_ARGS, serve_in_thread

    runs_root = written_runs["tbw"]["games.jsonl"].parent.parent
    app = create_app(runs_dir=runs_root)
    with serve_in_thread(app) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        errors, elsewhere = [], []
        page.on("pageerror", lambda error: errors.append(str(error)))
        # The page works offline: every request goes to this server.
        page.on("request", lambda request: request.url.startswith(url)
                or elsewhere.append(request.url))
        page.goto(url)
        page.wait_for_selector("#play-game option", state="attached")
        page.errors = errors
        yield page
        browser.close()
    assert errors == [] and elsewhere == []


def new_game(page, game, variant, opponent="random", seat="0", layout=None):
    page.click("#tab-play")
    page.select_option("#play-game", game)
    page.select_option("#play-variant", variant)
    page.fill("#play-opponent", opponent)
    page.select_option("#play-seat", seat)
    if layout is not None:
        page.select_option("#play-layout", layout)
    page.click("#start")


def plies(page) -> int:
    return int(page.get_attribute("#play-status", "data-plies") or -1)


def wait_for_turn_or_end(page, after: int | None = None) -> str:
    """The status once it is the person's move or the game is over (and, with ``after``, once
    the game has gone past that many plies)."""
    return page.wait_for_function(
        """(after) => {
            const status = document.getElementById('play-status');
            const ready = /^(Your move|You won|You lost|A draw)/.test(status.textContent);
            return ready && (after === null || Number(status.dataset.plies) > after)
                && status.textContent;
        }""", arg=after, timeout=60_000).json_value()


def test_a_whole_tbw_game_against_random_by_clicking(page, tmp_path):
    new_game(page, "tbw", "hex_skirmish", seat="1")
    rand = random.Random(0)
    turns = attacks = 0
    status = wait_for_turn_or_end(page)
    while status.startswith("Your move"):
        turns += 1
        ready = page.locator("g[data-unit][data-ready=true]")
        if ready.count():
            ready.nth(rand.randrange(ready.count())).click()
            destinations = page.locator("[data-tile].mark")
            assert destinations.count() >= 1  # the unit's movement range is highlighted
            before = plies(page)
            # A unit standing on its tile takes the click there: the same choice (stay).
            destinations.nth(rand.randrange(destinations.count())).click(force=True)
            if page.locator(".tbw-attack").count():
                page.locator(".tbw-attack").first.click()
                attacks += 1
            elif page.locator("#tbw-no-attack").count():
                page.click("#tbw-no-attack")
            if turns == 1:
                page.screenshot(path=str(tmp_path / "tbw.png"))
            status = wait_for_turn_or_end(page, before)
            if not status.startswith("Your move"):
                break
        before = plies(page)
        page.click("#tbw-end-turn")
        status = wait_for_turn_or_end(page, before)
    assert status.startswith(("You won", "You lost", "A draw")) and turns > 3
    assert attacks >= 1
    assert (tmp_path / "tbw.png").stat().st_size > 10_000


def test_a_whole_junqi_game_against_random_by_clicking(page, tmp_path):
    new_game(page, "junqi", "ccgc", layout="heuristic")
    rand = random.Random(1)
    moves = 0
    status = wait_for_turn_or_end(page)
    while status.startswith("Your move"):
        # Only my pieces are shown; the opponent's are "?" until the end.
        assert page.locator("svg[data-game=junqi] text", has_text="?").count() >= 1
        movable = page.locator("g[data-post][data-movable=true]")
        movable.nth(rand.randrange(movable.count())).click()
        targets = page.locator("g[data-post]:has(circle.target)")
        assert targets.count() >= 1
        before = plies(page)
        targets.nth(rand.randrange(targets.count())).click()
        status = wait_for_turn_or_end(page, before)
        moves += 1
        if moves == 5:
            page.screenshot(path=str(tmp_path / "junqi.png"))
    assert status.startswith(("You won", "You lost", "A draw")) and moves >= 1
    # The end reveals the whole board: no hidden piece is left.
    assert page.locator("svg[data-game=junqi] text", has_text="?").count() == 0
    assert "every piece is shown" in page.text_content("#play-info")


def test_a_junqi_layout_arranged_by_drag_and_drop(page):
    new_game(page, "junqi", "ccgc", layout="arrange")
    page.wait_for_selector("#deploy-grid .cell.piece")
    front = [page.text_content(f"#deploy-grid .cell[data-cell='{c}']") for c in range(5)]
    # Two front-row cells holding different pieces (a front row has at least two kinds).
    i, j = next((i, j) for i in range(5) for j in range(i + 1, 5) if front[i] != front[j])
    first = page.locator(f"#deploy-grid .cell[data-cell='{i}']")
    second = page.locator(f"#deploy-grid .cell[data-cell='{j}']")
    first.drag_to(second)
    assert (first.text_content(), second.text_content()) == (front[j], front[i])
    # Clicking one cell, then another, swaps them too (and back here).
    first.click()
    second.click()
    assert (first.text_content(), second.text_content()) == (front[i], front[j])
    first.drag_to(second)
    page.click("#deploy-done")
    wait_for_turn_or_end(page)
    # Player 0's front row is row G: it shows the arranged pieces.
    assert page.text_content(f"g[data-post='G{i}'] text") == front[j]
    assert page.text_content(f"g[data-post='G{j}'] text") == front[i]


def wait_for_ply(page, ply: int) -> None:
    page.wait_for_function(
        "(ply) => document.getElementById('watch-ply').textContent.startsWith(`ply ${ply} /`)",
        arg=ply, timeout=60_000)


def test_a_recorded_game_replays_step_by_step(page, tmp_path):
    page.click("#tab-watch")
    page.wait_for_selector("#watch-file option", state="attached")
    files = page.eval_on_selector_all("#watch-file option", "options => options.map(o => o.value)")
    junqi = next(f for f in files if "junqi" in f)
    page.select_option("#watch-file", junqi)
    page.wait_for_selector("#watch-board svg[data-game=junqi]")
    wait_for_ply(page, 0)
    last = int(page.text_content("#watch-ply").split("/")[1])
    page.click("#watch-next")
    page.click("#watch-next")
    assert page.text_content("#watch-ply").startswith("ply 2 /")
    page.click("#watch-prev")
    assert page.text_content("#watch-ply").startswith("ply 1 /")
    page.locator("#watch-scrub").fill(str(last // 2))
    assert page.text_content("#watch-ply").startswith(f"ply {last // 2} /")
    page.click("#watch-last")
    assert page.text_content("#watch-ply").startswith(f"ply {last} /")
    # Everything shown: no hidden piece; one player's view: the other's pieces are hidden.
    assert page.locator("#watch-board text", has_text="?").count() == 0
    page.select_option("#watch-view", "0")
    page.wait_for_function("() => [...document.querySelectorAll('#watch-board text')]"
                           ".some(t => t.textContent === '?')")
    page.screenshot(path=str(tmp_path / "watch.png"))
    # Autoplay runs to the end and stops there.
    page.select_option("#watch-speed", "100")
    page.locator("#watch-scrub").fill(str(max(0, last - 8)))
    page.click("#watch-play")
    wait_for_ply(page, last)
    assert page.text_content("#watch-play") == "Play"
    # TBW steps one unit action at a time.
    tbw = next(f for f in files if "tbw" in f)
    page.select_option("#watch-file", tbw)
    page.wait_for_selector("#watch-board svg[data-game=tbw]")
    page.click("#watch-first")
    assert "Next: unit" in page.text_content("#watch-info")
