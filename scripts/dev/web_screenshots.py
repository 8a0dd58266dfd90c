"""Screenshots of the web app for the docs: a TBW game and a Junqi game in play, and a replay.

    python scripts/dev/web_screenshots.py --runs runs --out docs

Needs the web and browser extras and Debian's chromium (docs/web.md). Plays a few moves against
``greedy`` with fixed seeds, selects a unit or piece so the highlights show, and opens the newest
Junqi game under ``--runs`` in the watcher, from player 0's view.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from agents.web.background import CHROMIUM, CHROMIUM_ARGS, serve_in_thread


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default="runs", help="folder of recorded games (default runs)")
    parser.add_argument("--out", default="docs", help="folder for the PNG files (default docs)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from agents.web.app import create_app

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    app = create_app(runs_dir=args.runs)
    with serve_in_thread(app) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        page = browser.new_page(viewport={"width": 1180, "height": 820})
        page.goto(url)
        page.wait_for_selector("#play-game option", state="attached")
        status = "document.getElementById('play-status').textContent.startsWith('Your move')"

        page.select_option("#play-game", "tbw")
        page.fill("#play-opponent", "greedy")
        page.click("#start")
        page.wait_for_function(f"() => {status}")
        for _ in range(3):  # three turns of ending the turn at once: the sides close in
            page.click("#tbw-end-turn")
            page.wait_for_timeout(300)
            page.wait_for_function(f"() => {status}")
        page.click("g[data-unit][data-ready=true] >> nth=0")
        page.screenshot(path=str(out / "web_tbw.png"), full_page=True)

        page.select_option("#play-game", "junqi")
        page.fill("#play-opponent", "greedy")
        page.select_option("#play-layout", "heuristic")
        page.click("#start")
        page.wait_for_function(f"() => {status}")
        for _ in range(6):
            page.click("g[data-post][data-movable=true] >> nth=-1")
            page.click("g[data-post]:has(circle.target) >> nth=0")
            page.wait_for_timeout(300)
            page.wait_for_function(f"() => {status}")
        page.click("g[data-post][data-movable=true] >> nth=-1")
        page.screenshot(path=str(out / "web_junqi.png"), full_page=True)

        page.click("#tab-watch")
        page.wait_for_selector("#watch-file option", state="attached")
        files = page.eval_on_selector_all("#watch-file option", "o => o.map(x => x.value)")
        for name in files:
            page.select_option("#watch-file", name)
            page.wait_for_selector("#watch-board svg")
            if page.locator("#watch-board svg[data-game=junqi]").count():
                break
        page.select_option("#watch-view", "0")
        page.wait_for_timeout(500)
        page.locator("#watch-scrub").fill("20")
        page.screenshot(path=str(out / "web_watch.png"), full_page=True)
        browser.close()
    for name in ("web_tbw.png", "web_junqi.png", "web_watch.png"):
        print(out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
