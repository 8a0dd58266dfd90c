"""Convert a Stable-Baselines3 ``model.zip`` into a policy file (``policy.npz``) the arena loads.

    tbw-convert-model runs/ppo-tbw-.../model.zip runs/ppo-tbw-.../policy.npz

(``python scripts/convert_model.py`` from a clone is the same command.)

WARNING: this unpickles the zip (``MaskablePPO.load``), and unpickling runs whatever code the
file carries. Convert only a file you trust: one you trained yourself, or from someone you
trust. The policy file it writes holds arrays and JSON only; ``ppo:path=...policy.npz``,
``tbw-arena --agents`` and ``tbw-train --opponent`` / ``--init`` load it
without running any code (``agents.policy.policy_files``), and they refuse ``.zip`` files.

The game, scenario or rule set and perspective come from the model (``tbw-train`` stores them
in every ``model.zip`` and checkpoint); ``--game`` and the game's variant flag (``--scenario``,
``--rules``, ...) supply them for a model that lacks them, and must agree with them otherwise.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from agents.cli.common import (
    add_game_flag,
    add_variant_flags,
    command_words,
    missing_extra,
    option,
    refuse_other_variants,
    variant_flags,
)
from agents.policy.policy_files import GAME_INFO_ATTRIBUTE, load_policy, save_policy
from tbw_envs.games import game_names

WARNING = ("WARNING: the zip is unpickled, which runs any code it carries: convert only a "
           "model.zip you trust (one you trained, or from someone you trust).")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Convert an SB3 MaskablePPO model.zip (tbw-train) into a policy "
                    "file (.npz) that loads without running code. " + WARNING,
        epilog=WARNING)
    p.add_argument("model", help="the model.zip to convert (a file you trust)")
    p.add_argument("output", help="the policy file to write (.npz)")
    add_game_flag(p, help="the model's game, if the model does not say")
    p.add_argument("--sample", action="store_true",
                   help="play by sampling by default (deterministic otherwise)")
    p.add_argument("--force", action="store_true", help="overwrite the output file")
    add_variant_flags(p, what="the {noun} it was trained on, if the model does not say")
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
    if args.game is not None:
        refuse_other_variants(args, args.game, parser.error)
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        return missing_extra("tbw-convert-model", "train", exc)
    torch.set_num_threads(1)
    print(WARNING, file=sys.stderr)
    model = MaskablePPO.load(str(source), device="cpu")
    info = dict(getattr(model, GAME_INFO_ATTRIBUTE, None) or {})
    for key in ("game", *variant_flags()):
        given = getattr(args, key)
        if given is None:
            continue
        if info.get(key) not in (None, given):
            parser.error(f"{option(key)} {given}: the model says it was trained with "
                         f"{key} {info[key]!r}")
        info[key] = given
    game = info.get("game")
    if game not in game_names():
        parser.error("the model does not say its game: give "
                     + " or ".join(f"--game {name}" for name in game_names()))
    refuse_other_variants(args, game, parser.error)
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
    arena = shlex.join([*command_words("arena"), "--game", game, "--agents", f"ppo:path={path}",
                        "greedy", "random"])
    print(f"wrote {path} ({game}): {arena}")
    return 0

