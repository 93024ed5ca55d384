"""Settings come from the config, state from the saved ``cfg`` file.

spaCy's trainable components save ``self.cfg`` next to their weights and ``from_disk`` overwrites
``self.cfg`` with it, so ``spacy.load(path, config={"components": {name: {"threshold": 0.1}}})`` builds
the component with 0.1 and loading then silently puts the saved value back. Our components restore from
the file only what training learned (``state_keys``) and what the config does not set.
"""
from typing import Any, Dict, Iterable


def restore_cfg(cfg: Dict[str, Any], saved: Dict[str, Any], state_keys: Iterable[str] = ()) -> None:
    """Update ``cfg`` in place with the ``saved`` values of ``state_keys`` and of keys ``cfg`` lacks."""
    state = set(state_keys)
    cfg.update({key: value for key, value in saved.items() if key in state or key not in cfg})
