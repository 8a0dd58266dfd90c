"""The web app in a real browser: headless Chromium (Debian's ``chromium`` package) driven by
Playwright against the app served by uvicorn. A whole game of each game against ``random``,
played by clicking, and one of a game the page has never heard of (the minigame) on the
generic text board; a Junqi layout arranged by drag and drop; a recorded game replayed, stepped,
scrubbed and autoplayed, from everything and from one player's view. Screenshots go to the
test's temporary folder (``scripts/dev/web_screenshots.py`` makes the ones in docs/).

Run with ``python -m pytest -m browser`` (docs/web.md: installing Chromium)."""

from __future__ import annotations

import json
import random
import re
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
        not_found = []
        page.on("response", lambda response: response.status == 404
                and not_found.append(response.url))
        page.goto(url)
        page.wait_for_selector("#play-game option", state="attached")
        page.errors = errors
        page.not_found = not_found
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


def seed_new_games(page, seed: int) -> None:
    """The page sends no seed (the server draws one); the games a test clicks through replay
    the same when its new games carry one."""
    def add_seed(route):
        request = route.request
        if request.method != "POST":
            route.continue_()
            return
        body = json.loads(request.post_data or "{}")
        route.continue_(post_data=json.dumps({**body, "seed": seed}))

    page.route("**/api/play", add_seed)


def test_a_whole_tbw_game_against_random_by_clicking(page, tmp_path):
    seed_new_games(page, 3)
    try:
        new_game(page, "tbw", "hex_skirmish", seat="1")
        play_tbw_by_clicking(page, tmp_path)
    finally:
        page.unroute("**/api/play")


def play_tbw_by_clicking(page, tmp_path):
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
    # The end says who won, not whose move it would be.
    outcome = page.text_content("#play-info .outcome")
    assert re.fullmatch(r"(player [01] won|A draw): [a-z ]+", outcome), outcome
    assert "may still act" not in page.text_content("#play-info")
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


def test_a_game_the_page_has_never_heard_of_is_played_on_the_text_board(page,
                                                                       registered_minigame):
    # The page asks the server for its games when it loads: registered now, so load it again.
    page.reload()
    page.wait_for_selector("#play-game option[value=nim]", state="attached")
    new_game(page, "nim", "large", seat="1")
    rand = random.Random(2)
    moves = 0
    status = wait_for_turn_or_end(page)
    while status.startswith("Your move"):
        board = page.text_content("#play-board pre.text-board[data-board=text]")
        assert re.fullmatch(r"heap large: \d+ of 21 stones left, player 1 to take 1 to 4", board)
        buttons = page.locator("#play-actions button.text-action")
        assert 1 <= buttons.count() <= 4
        assert buttons.first.text_content() == "action 0"
        before = plies(page)
        buttons.nth(rand.randrange(buttons.count())).click()
        status = wait_for_turn_or_end(page, before)
        moves += 1
    assert status.startswith(("You won", "You lost")) and moves >= 1
    assert re.fullmatch(r"player [01] won: last stone", page.text_content("#play-info .outcome"))
    assert "empty, player" in page.text_content("#play-board pre.text-board")
    assert page.locator("#play-actions button.text-action").count() == 0
    assert page.locator("#layout-choice").is_hidden()
    lines = page.locator("#play-log li").all_text_contents()
    assert len(lines) == plies(page) and all(re.fullmatch(r"player [01]: action [0-3]", line)
                                             for line in lines)


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


def _box_center(page, selector):
    box = page.locator(selector).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, box


def test_tbw_labels_name_the_tiles_as_the_log_does(page):
    # The agent moves first, so the log has lines; greedy always moves its units (random may
    # end its turn at once, and the page picks the seed).
    new_game(page, "tbw", "duel_5v5_8x8", opponent="greedy", seat="1")
    wait_for_turn_or_end(page)
    moves = [re.search(r"-> \((\d+), (\d+)\)", line)
             for line in page.locator("#play-log li").all_text_contents()]
    moves = [m for m in moves if m]
    assert moves
    for move in moves:
        row, col = move.groups()
        _x, _y, tile = _box_center(page, f"#play-board rect[data-tile='{row},{col}']:not(.mark)")
        label_x, _, _ = _box_center(page, f"#play-board text.coord[data-col='{col}']")
        _, label_y, _ = _box_center(page, f"#play-board text.coord[data-row='{row}']")
        assert page.text_content(f"#play-board text.coord[data-col='{col}']") == col
        assert page.text_content(f"#play-board text.coord[data-row='{row}']") == row
        # The column's number is above the tile, the row's number level with it.
        assert tile["x"] < label_x < tile["x"] + tile["width"]
        assert tile["y"] < label_y < tile["y"] + tile["height"]
    # Choosing a unit marks where it may go, in the mark colour, not in a terrain's.
    page.locator("g[data-unit][data-ready=true]").first.click()
    mark = page.locator("[data-tile].mark").first
    assert mark.get_attribute("stroke") == "#ff00ff"


def test_junqi_labels_name_the_posts_as_the_log_does(page):
    for seat in ("0", "1"):  # player 1 sees the board turned: the labels turn with it
        new_game(page, "junqi", "ccgc", seat=seat, layout="heuristic")
        if seat == "0":
            wait_for_turn_or_end(page)
            page.locator("g[data-post][data-movable=true]").first.click()
            before = plies(page)
            page.locator("g[data-post]:has(circle.target)").first.click()
        else:
            before = 0
        wait_for_turn_or_end(page, before)
        lines = page.locator("#play-log li").all_text_contents()
        posts = [p for line in lines for p in re.search(r": ([A-L]\d)-([A-L]\d) ", line).groups()]
        assert posts
        for post in posts:
            _x, _y, box = _box_center(page, f"#play-board g[data-post='{post}']")
            label_x, _, _ = _box_center(page, f"#play-board text.coord[data-col='{post[1]}']")
            _, label_y, _ = _box_center(page, f"#play-board text.coord[data-row='{post[0]}']")
            assert page.text_content(f"#play-board text.coord[data-row='{post[0]}']") == post[0]
            assert box["x"] < label_x < box["x"] + box["width"], post
            assert box["y"] < label_y < box["y"] + box["height"], post


def test_an_error_does_not_outlive_a_switch_of_game(page):
    new_game(page, "tbw", "duel_5v5_8x8", opponent="no_such_agent")
    page.wait_for_selector("#play-error", state="visible")
    assert "no_such_agent" in page.text_content("#play-error")
    page.select_option("#play-game", "junqi")
    assert page.locator("#play-error").is_hidden()


def test_a_late_failure_of_a_junqi_start_leaves_the_tbw_game_alone(page):
    held = []

    def hold_the_first_start(route):
        if route.request.method == "POST" and not held:
            held.append(route)
        else:
            route.continue_()

    page.route("**/api/play", hold_the_first_start)
    try:
        new_game(page, "junqi", "ccgc", layout="arrange")
        page.wait_for_selector("#deploy-grid .cell.piece")
        page.click("#deploy-done")
        for _ in range(200):  # bounds a hang only: the request is held at once
            if held:
                break
            page.wait_for_timeout(25)
        assert held
        new_game(page, "tbw", "duel_5v5_8x8")
        wait_for_turn_or_end(page)
        assert page.locator("#deploy").is_hidden()
        with page.expect_response(lambda response: response.status == 400):
            held[0].fulfill(status=400, content_type="application/json",
                            body='{"error": "layout: a late refusal"}')
        page.wait_for_timeout(300)  # the page's handler of that answer has run
    finally:
        page.unroute("**/api/play")
    assert page.locator("#deploy").is_hidden()
    assert page.locator("#play-error").is_hidden()
    assert page.text_content("#play-status").startswith("Your move")
    assert page.locator("#play-board svg[data-game=tbw]").count() == 1


def test_a_finished_recorded_game_says_who_won(page):
    page.click("#tab-watch")
    page.wait_for_selector("#watch-file option", state="attached")
    files = page.eval_on_selector_all("#watch-file option", "options => options.map(o => o.value)")
    for game in ("tbw", "junqi"):
        page.select_option("#watch-file", next(f for f in files if game in f))
        page.wait_for_selector(f"#watch-board svg[data-game={game}]")
        page.click("#watch-last")
        outcome = page.text_content("#watch-info .outcome")
        assert re.search(r"(player [01] won|A draw): [a-z ]+\.$", outcome), outcome
        assert "to act" not in page.text_content("#watch-info")
        page.click("#watch-first")
        assert page.locator("#watch-info .outcome").count() == 0


def test_the_favicon_loads(page):
    page.reload()
    page.wait_for_selector("#play-game option", state="attached")
    status, kind = page.evaluate("""() => fetch(document.querySelector("link[rel=icon]").href)
        .then((r) => [r.status, r.headers.get("content-type")])""")
    assert status == 200 and kind.startswith("image/svg+xml")
    assert [u for u in page.not_found if "/api/" not in u] == []
