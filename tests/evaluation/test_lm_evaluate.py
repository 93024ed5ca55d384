"""The DNTM table over variants and seeds: one row per variant, merge and set of options."""
from spacy_entmem.evaluation.lm_evaluate import GROUP_TITLES, group_table, model_options


def _result(dynamic, seed, all_ppl, options=None):
    result = {"dynamic": dynamic, "merge": "gru_relu", "seed": seed, "tokens_per_second": 100.0, "cloze_mq": 0.5,
              "perplexity": {group: all_ppl for group in GROUP_TITLES}}
    if options is not None:
        result["options"] = options
    return result


def test_options_name_what_differs_from_the_paper():
    assert model_options({"dynamic": "both", "state_dropout": 0.0, "share_embeddings": False}) == ""
    assert model_options({"state_dropout": 0.5, "share_embeddings": True}) == "shared embeddings, state dropout 0.5"
    pretrained = {"pretrained_context": "training/dntm_context/encoder.pt"}
    assert model_options({"dynamic": "both", "freeze_context": True}, pretrained) == (
        "cloze-pretrained encoder and embeddings, encoder frozen")
    # the baseline has no encoder: its row says what it took
    assert model_options({"dynamic": "none", "freeze_context": True}, pretrained) == "cloze-pretrained embeddings"
    assert model_options({"dynamic": "both"}, {"pretrained_context": None}) == ""
    assert model_options({"dynamic": "none"}, dict(pretrained, slots_as_anonymised=False)) == (
        "cloze-pretrained embeddings, slots' own start")


def test_runs_with_other_options_get_their_own_row_and_no_paper_numbers():
    table = group_table([_result("none", 0, 170.0), _result("none", 1, 174.0),
                         _result("both", 0, 160.0, ""), _result("both", 0, 150.0, "shared embeddings")])
    rows = table.splitlines()[2:]
    assert len(rows) == 3
    assert rows[0].startswith("| LSTM LM (baseline) (A) | — | 2 | 172.0 ± 2.8 |")
    assert rows[1].startswith("| With dynamic input & output (D) | gru_relu | 1 | 160.0 |") and "60.7" in rows[1]
    assert rows[2].startswith("| With dynamic input & output (D), shared embeddings | gru_relu | 1 | 150.0 |")
    assert rows[2].endswith("|  |")  # the paper's row belongs to its own set-up only


def test_the_papers_numbers_stand_beside_its_set_up_and_merge_function():
    pretrained = "cloze-pretrained encoder and embeddings, encoder frozen"
    table = group_table([dict(_result("output", 0, 150.0, pretrained), merge="max"),
                         _result("none", 0, 160.0, "cloze-pretrained embeddings"),
                         _result("both", 0, 150.0, "cloze-pretrained encoder and embeddings, slots' own start")])
    rows = {row.split(" | ")[0]: row for row in table.splitlines()[2:]}
    assert rows["| LSTM LM (baseline) (A), cloze-pretrained embeddings"].endswith("| 64.8 / 48.0 / 128.6 / 68.5, 0.525 |")
    # Table 3: C with max-pooling
    assert rows[f"| With only dynamic output (C), {pretrained}"].endswith("| 62.2 / 41.1 / 126.9 / 68.4, 0.519 |")
    assert rows["| With dynamic input & output (D), cloze-pretrained encoder and embeddings, slots' own start"].endswith("|  |")
