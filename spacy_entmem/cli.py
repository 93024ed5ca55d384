"""The command line (``entmem``, ``python -m spacy_entmem``); it lives in ``spacy_entmem_cli.commands`` so that
``entmem --help`` loads no spaCy. Everything it defines is available here too."""
from spacy_entmem_cli.commands import *  # noqa: F401,F403
from spacy_entmem_cli.commands import app, load_for_command, load_pipeline  # noqa: F401
