"""The one thing pyproject.toml cannot say: the packages are found (every folder of tbw_envs/
and agents/ with an ``__init__.py``, so a new game's folders ship without an edit), and the
top-level configs/ is added as ``tbw_envs.configs`` (mapped in pyproject.toml), which
setuptools' ``packages.find`` cannot find. Everything else is in pyproject.toml."""

from setuptools import find_packages, setup


def packages() -> list[str]:
    return [*find_packages(include=["tbw_envs", "tbw_envs.*", "agents", "agents.*"]),
            "tbw_envs.configs"]


if __name__ == "__main__":
    setup(packages=packages())
