"""Convert a Stable-Baselines3 ``model.zip`` into a policy file (``policy.npz``) the arena loads.

    python scripts/convert_model.py runs/ppo-tbw-.../model.zip runs/ppo-tbw-.../policy.npz

WARNING: this unpickles the zip (``MaskablePPO.load``), and unpickling runs whatever code the
file carries. Convert only a file you trust: one you trained yourself, or from someone you
trust. The policy file it writes holds arrays and JSON only; ``ppo:path=...policy.npz``,
``scripts/arena.py --agents`` and ``scripts/train_ppo.py --opponent`` / ``--init`` load it
without running any code (``agents.policy.policy_files``), and they refuse ``.zip`` files.

The game, scenario or rule set and perspective come from the model (``scripts/train_ppo.py``
stores them in every ``model.zip`` and checkpoint); ``--game`` (and ``--scenario`` /
``--rules``) supply them for a model that lacks them, and must agree with them otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from agents.policy.policy_files import (  # noqa: E402
    GAME_INFO_ATTRIBUTE,
    load_policy,
    save_policy,
)
from tbw_envs.games import GAMES, game_names, get_game  # noqa: E402

VARIANT_FLAGS = tuple(game.variant_flag for game in GAMES.values())  # scenario, rules
WARNING = ("WARNING: the zip is unpickled, which runs any code it carries: convert only a "
           "model.zip you trust (one you trained, or from someone you trust).")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Convert an SB3 MaskablePPO model.zip (scripts/train_ppo.py) into a policy "
                    "file (.npz) that loads without running code. " + WARNING,
        epilog=WARNING)
    p.add_argument("model", help="the model.zip to convert (a file you trust)")
    p.add_argument("output", help="the policy file to write (.npz)")
    p.add_argument("--game", choices=game_names(), default=None,
                   help="the model's game, if the model does not say")
    p.add_argument("--scenario", default=None, help="TBW: the scenario it was trained on")
    p.add_argument("--rules", default=None, help="Junqi: the rule set it was trained on")
    p.add_argument("--sample", action="store_true",
                   help="play by sampling by default (deterministic otherwise)")
    p.add_argument("--force", action="store_true", help="overwrite the output file")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    source, output = Path(args.model), Path(args.output)
    if not source.is_file():
        parser.error(f"model {str(source)!r} not found")
    if output.suffix != ".npz":
        parser.error(f"output {str(output)!r}: a policy file ends in .npz")
    if output.exists() and not args.force:
        parser.error(f"output {str(output)!r} exists (--force overwrites it)")
    if output.resolve() == source.resolve():
        parser.error("output and model are the same file")
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        print(f"convert_model.py needs the train extra: pip install -c constraints.txt -e "
              f"'.[train]' ({exc})", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    print(WARNING, file=sys.stderr)
    model = MaskablePPO.load(str(source), device="cpu")
    info = dict(getattr(model, GAME_INFO_ATTRIBUTE, None) or {})
    for key in ("game", *VARIANT_FLAGS):
        given = getattr(args, key)
        if given is None:
            continue
        if info.get(key) not in (None, given):
            parser.error(f"--{key} {given}: the model says it was trained with "
                         f"{key} {info[key]!r}")
        info[key] = given
    game = info.get("game")
    if game not in game_names():
        parser.error("the model does not say its game: give "
                     + " or ".join(f"--game {name}" for name in game_names()))
    other_flags = [key for key in VARIANT_FLAGS
                   if key != get_game(game).variant_flag and getattr(args, key)]
    if other_flags:
        parser.error(f"--{other_flags[0]} does not apply to {game}")
    try:
        path = save_policy(model.policy, output, info, deterministic=not args.sample,
                           source=f"converted from {source.name}",
                           timesteps=int(getattr(model, "num_timesteps", 0) or 0))
    except ValueError as exc:
        parser.error(f"cannot convert {str(source)!r}: {exc}")
    # Read back through the loader's checks; the weights must come back exactly.
    policy, _ = load_policy(path)
    saved = model.policy.state_dict()
    loaded = policy.state_dict()
    if saved.keys() != loaded.keys() or not all(torch.equal(saved[k], loaded[k])
                                                 for k in saved):
        print(f"error: {path} does not hold the model's weights exactly", file=sys.stderr)
        return 1
    print(f"wrote {path} ({game}): python scripts/arena.py --game {game} --agents "
          f"ppo:path={path} greedy random")
    return 0


if __name__ == "__main__":
    sys.exit(main())
