"""Play and watch in the browser: a local web app (``scripts/serve.py``, the ``web`` extra).

``agents.web.app.create_app`` builds the Starlette app; ``play`` holds the games a person plays
against an agent, ``watch`` reads recorded arena games, and ``views`` turns positions into the
JSON the page draws, from what each player may know, through each game's web board (its own,
``Game.web_board``, or the generic ``text_board``). The page itself (``static/``) is plain
HTML, CSS and JavaScript with no build step and nothing fetched from the internet.
"""
