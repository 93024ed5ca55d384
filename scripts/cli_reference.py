"""Write docs/cli.md: every user command of ``entmem`` with its help text (``python scripts/cli_reference.py``;
tests/test_cli.py checks the page is up to date)."""
import sys
from pathlib import Path

import click
from typer.main import get_command
from typer.testing import CliRunner

from spacy_entmem_cli.commands import app

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"


def user_commands():
    """(name, click command) of the listed top-level commands, research group left out."""
    cli = get_command(app)
    ctx = click.Context(cli, info_name="entmem")
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        if not command.hidden and name != "research":
            yield name, command, ctx


def reference() -> str:
    parts = ["# Command-line reference\n",
             "`entmem COMMAND --help` prints the same. Research and maintenance commands: `entmem research --help`, "
             "`python -m spacy_entmem.research.maintainer --help`. This page is written by "
             "`python scripts/cli_reference.py`.\n"]
    runner = CliRunner()
    for name, _, _ in user_commands():
        result = runner.invoke(app, [name, "--help"], prog_name="entmem", env={"COLUMNS": "100", "NO_COLOR": "1",
                                                                               "TERM": "dumb"})
        text = "\n".join(line.rstrip() for line in result.output.strip("\n").splitlines())
        parts.append(f"## {name}\n\n```\n{text}\n```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    PAGE.write_text(reference(), encoding="utf8")
    sys.stdout.write(f"wrote {PAGE}\n")
