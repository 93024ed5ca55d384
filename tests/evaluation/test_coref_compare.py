import pytest
from typer.testing import CliRunner

from spacy_entmem.cli import app
from spacy_entmem.corpora.conll2012 import write_document
from spacy_entmem.evaluation.coref_compare import compare_conll
from spacy_entmem.evaluation.coref_metrics import CorefScorer

WORDS = ["Anna", "met", "Bo", ".", "She", "smiled", "at", "him", "."]
GOLD = [[(0, 1), (4, 5)], [(2, 3), (7, 8)]]
MERGED = [[(0, 1), (2, 3), (4, 5), (7, 8)]]


def _write(path, documents):
    with path.open("w", encoding="utf8") as out:
        for name, clusters in documents:
            write_document(out, name, WORDS, [4, 5], clusters)
    return path


def test_a_better_system_is_told_apart_and_scored_as_the_scorer_scores(tmp_path):
    names = [f"doc{i}" for i in range(8)]
    gold = _write(tmp_path / "gold.conll", [(n, GOLD) for n in names])
    right = _write(tmp_path / "right.conll", [(n, GOLD if i % 2 else MERGED) for i, n in enumerate(names)])
    merged = _write(tmp_path / "merged.conll", [(n, MERGED) for n in names])
    result = compare_conll(gold, right, merged, samples=300)
    direct = CorefScorer(True)
    for i in range(8):
        direct.add(GOLD, GOLD if i % 2 else MERGED)
    assert result["first"]["lea_f"] == pytest.approx(direct.scores()["lea_f"])
    assert result["documents"] == 8 and result["second"]["lea_f"] < result["first"]["lea_f"]
    assert result["first_minus_second"]["lea_f"][0] > 0  # right on half the documents, never worse
    same = compare_conll(gold, merged, merged, samples=300)
    assert same["first_minus_second"] == {"conll_f": [0.0, 0.0], "lea_f": [0.0, 0.0]}
    output = CliRunner().invoke(app, ["coref-compare", str(gold), str(right), str(merged), "--samples", "300"])
    assert output.exit_code == 0, output.output
    assert "LEA: first" in output.output and "(first better)" in output.output


def test_outputs_on_other_documents_are_refused_by_name(tmp_path):
    gold = _write(tmp_path / "gold.conll", [("a", GOLD), ("b", GOLD)])
    renamed = _write(tmp_path / "renamed.conll", [("a", GOLD), ("c", GOLD)])
    shorter = _write(tmp_path / "shorter.conll", [("a", GOLD)])
    with pytest.raises(ValueError, match=r"document 2 of .*renamed.conll is 'c' \(9 tokens\), of .*gold.conll 'b'"):
        compare_conll(gold, gold, renamed)
    with pytest.raises(ValueError, match=r"shorter.conll holds 1 documents, .*gold.conll 2"):
        compare_conll(gold, shorter, gold)
    output = CliRunner().invoke(app, ["coref-compare", str(gold), str(gold), str(renamed)])
    assert output.exit_code == 1 and "document 2 of" in output.output
