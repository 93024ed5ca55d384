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


def _overrides(config) -> dict:
    """Every variable overridden with a value of its own type."""
    return {f"vars.{name}": (f"{value}-x" if isinstance(value, str) else value) for name, value in config["vars"].items()}


def test_overridden_variables_leave_the_scripts_shell_variables_alone():
    """weasel turns '$' into '$$' in every script once --vars overrides are given: no script of project.yml may
    hold a shell variable, and each script file a command runs exists."""
    import shlex

    config = load_project_config(ROOT, overrides=_overrides(load_project_config(ROOT)))
    for command in config["commands"]:
        for line in command.get("script", []):
            assert "$$" not in line, (command["name"], line)
            if line.startswith("bash scripts/"):
                script = shlex.split(line)[1]
                assert (ROOT / script).is_file(), (command["name"], script)


def test_an_overridden_command_runs_its_loop(tmp_path):
    """`spacy project run train-dntm --vars.lm_seeds=0` in a copy of the project whose runs are all finished:
    the loop reads $variant and $seed, skips each finished run and exits 0, and only seed 0 is looked at."""
    import shutil
    import subprocess
    import sys

    shutil.copy(ROOT / "project.yml", tmp_path / "project.yml")
    shutil.copytree(ROOT / "scripts", tmp_path / "scripts")
    for path in ("configs/dntm.cfg", "corpus/coref/train", "corpus/coref/dev"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).mkdir() if "." not in Path(path).name else (tmp_path / path).write_text("")
    for variant in ("none", "input", "output", "both"):
        (tmp_path / "training" / "dntm" / f"{variant}-s0" / "model-best").mkdir(parents=True)
    result = subprocess.run([sys.executable, "-m", "spacy", "project", "run", "train-dntm", str(tmp_path),
                             "--vars.lm_seeds=0"], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "bash scripts/train-dntm.sh 0" in result.stdout
    assert sorted(p.name for p in (tmp_path / "training" / "dntm").iterdir()) == [
        "both-s0", "input-s0", "none-s0", "output-s0"]
