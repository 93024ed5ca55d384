from spacy_entmem.evaluation.rule_baseline import singleton_clusters, string_match_clusters


def test_string_match_joins_equal_texts_case_insensitively_and_pronouns_take_the_nearest_mention():
    words = "Emma met Mr. Knightley . she liked emma and he smiled".split()
    mentions = [(0, 1), (2, 4), (5, 6), (7, 8), (9, 10)]
    clusters = string_match_clusters(words, mentions)
    # "she" -> nearest earlier mention "Mr. Knightley"; "emma" = "Emma"; "he" -> nearest: "emma"
    assert clusters == [[(0, 1), (7, 8), (9, 10)], [(2, 4), (5, 6)]]


def test_a_leading_pronoun_with_nothing_before_stays_alone_and_duplicates_collapse():
    words = "He saw Anna".split()
    assert string_match_clusters(words, [(2, 3), (0, 1), (2, 3)]) == [[(0, 1)], [(2, 3)]]
    assert singleton_clusters([(2, 3), (0, 1), (2, 3)]) == [[(0, 1)], [(2, 3)]]


def test_nested_mentions_link_a_pronoun_to_the_nearest_ending_mention():
    words = "[ his mother ] saw her".split()
    # "his mother" (1, 3) contains "his" (1, 2); "her" takes the mention ending last before it: (1, 3)
    clusters = string_match_clusters(words, [(1, 2), (1, 3), (5, 6)])
    assert [(1, 3), (5, 6)] in clusters and [(1, 2)] in clusters
