"""Deprecated: moved to agents.learning.agent (PPOAgent), agents.learning.policy_files,
agents.learning.policy_metadata and agents.learning.architectures; this path re-exports them."""

from agents.learning.agent import PPOAgent  # noqa: F401
from agents.learning.architectures import (  # noqa: F401
    ARCHITECTURES,
    build_policy,
    describe_policy,
)
from agents.learning.policy_files import (  # noqa: F401
    CONVERT_HINT,
    GAME_INFO_ATTRIBUTE,
    MAX_ENTRIES,
    MAX_FILE_BYTES,
    MAX_METADATA_BYTES,
    METADATA_ENTRY,
    PARAM_PREFIX,
    POLICY_FILE,
    load_policy,
    read_policy_file,
    resolve_policy_path,
    save_policy,
)
from agents.learning.policy_metadata import (  # noqa: F401
    MAX_CHANNELS,
    MAX_CONV_LAYERS,
    MAX_FEATURES,
    MAX_HEAD_LAYERS,
    MAX_HEAD_WIDTH,
    MAX_PARAMETERS,
    MAX_PLANES,
    MAX_TEXT,
    POLICY_FORMAT,
    POLICY_FORMAT_VERSION,
    PolicyFileError,
    game_info_of,
)
