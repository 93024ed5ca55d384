"""Registered callbacks used by the training configs."""
import json
import sys
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional

from spacy.language import Language
from spacy.util import registry


@registry.callbacks("spacy_entmem.initialize_frozen.v1")
def make_initialize_frozen(components: List[str]) -> Callable[[Language], Language]:
    """``[initialize.before_init]``: initialize frozen components (e.g. a pretrained transformer used as a
    fixed feature extractor, as PeTra does with BERT) that ``spacy train`` would otherwise skip."""

    def initialize_frozen(nlp: Language) -> Language:
        for name in components:
            if name not in nlp.component_names:
                raise ValueError(f"[spacy-entmem] initialize_frozen: no component '{name}' in {nlp.component_names}")
            pipe = nlp.get_pipe(name)
            pipe.model.initialize()
            # Listeners learn their width from the upstream model once it is known.
            for listener in getattr(pipe, "listeners", []):
                if pipe.model.has_dim("nO") and listener.has_dim("nO") is None:
                    listener.set_dim("nO", pipe.model.get_dim("nO"))
        return nlp

    return initialize_frozen


@registry.loggers("spacy_entmem.TimedConsoleLogger.v1")
def make_timed_console_logger(progress_bar: bool = False, output_file: Optional[str] = None,
                               checkpoints_dir: Optional[str] = None):
    """spaCy's console logger, plus one JSON line per evaluation with the wall time since training
    started (so "time to the best validation score" can be read off a run); with ``checkpoints_dir``, the
    pipeline is also saved at every evaluation to ``checkpoints_dir/step-N`` (for ``entmem
    average-checkpoints``)."""
    console = registry.loggers.get("spacy.ConsoleLogger.v3")(progress_bar="train" if progress_bar else None)

    def setup(nlp: Language, stdout: IO = sys.stdout, stderr: IO = sys.stderr):
        log_step, finalize = console(nlp, stdout, stderr)
        start = time.perf_counter()
        stream = None
        if output_file:
            Path(output_file).parent.mkdir(parents=True, exist_ok=True)
            stream = open(output_file, "w", encoding="utf8")

        def step(info: Optional[Dict[str, Any]]) -> None:
            log_step(info)
            if info is not None and stream is not None:
                scores = {k: v for k, v in info["other_scores"].items() if isinstance(v, (int, float))}
                record = {"epoch": info["epoch"], "step": info["step"], "score": info["score"],
                          "seconds": round(time.perf_counter() - start, 1), "scores": scores}
                stream.write(json.dumps(record) + "\n")
                stream.flush()
            if info is not None and checkpoints_dir:
                checkpoint = Path(checkpoints_dir) / f"step-{info['step']}"
                checkpoint.mkdir(parents=True, exist_ok=True)
                nlp.to_disk(checkpoint)

        def close() -> None:
            finalize()
            if stream is not None:
                stream.close()

        return step, close

    return setup
