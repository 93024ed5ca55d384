"""What every benchmark does with its result: print it as JSON and, with ``--output``, write it there."""
import json
from pathlib import Path
from typing import Optional


def report(result: dict, output: Optional[Path]) -> None:
    print(json.dumps(result, indent=2))
    if output:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(result, indent=2))
