"""project.yml is a valid spaCy project: `spacy project run` refuses the whole file otherwise."""
from pathlib import Path

from weasel.util import load_project_config

ROOT = Path(__file__).resolve().parents[1]


def test_project_file_loads_and_every_workflow_step_is_a_command():
    config = load_project_config(ROOT)  # validates the schema, names and workflows; exits on a problem
    commands = {command["name"] for command in config["commands"]}
    assert not commands & set(config["workflows"]), "a workflow may not share a command's name"
    for workflow, steps in config["workflows"].items():
        assert set(steps) <= commands, (workflow, sorted(set(steps) - commands))


def test_project_commands_read_the_shared_data_directory():
    config = load_project_config(ROOT)
    assert config["vars"]["data_dir"] == "../shared/data"
