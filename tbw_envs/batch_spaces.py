"""The batch-wide spaces of the vector envs (``tbw_envs.vector``, ``tbw_envs.single_vector``)."""

from __future__ import annotations

from gymnasium import spaces
from gymnasium.vector.utils import batch_space

__all__ = ["BatchSpacesOnDemand"]


class BatchSpacesOnDemand:
    """``observation_space`` and ``action_space`` over the whole batch, built from the
    ``single_*`` spaces on first use. Gymnasium's ``Box`` keeps its bounds and two boundedness
    masks at the full batch shape: about 460 MB for TBW ``battle_10v10_16x16`` at 4,096 envs,
    which trainers reading only the ``single_*`` spaces never touch."""

    single_observation_space: spaces.Space
    single_action_space: spaces.Space
    num_envs: int
    _batch_spaces: dict[str, spaces.Space]

    def _batch_space(self, name: str) -> spaces.Space:
        built = self.__dict__.setdefault("_batch_spaces", {})
        if name not in built:
            built[name] = batch_space(getattr(self, f"single_{name}"), self.num_envs)
        return built[name]

    @property
    def observation_space(self) -> spaces.Space:
        return self._batch_space("observation_space")

    @observation_space.setter
    def observation_space(self, space: spaces.Space) -> None:
        self.__dict__.setdefault("_batch_spaces", {})["observation_space"] = space

    @property
    def action_space(self) -> spaces.Space:
        return self._batch_space("action_space")

    @action_space.setter
    def action_space(self, space: spaces.Space) -> None:
        self.__dict__.setdefault("_batch_spaces", {})["action_space"] = space
