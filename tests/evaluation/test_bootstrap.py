import numpy
import pytest

from spacy_entmem.evaluation.bootstrap import check_settings, percentile_interval


def test_the_interval_is_the_central_share_of_the_values():
    values = numpy.arange(1, 1001, dtype=float)
    low, high = percentile_interval(values, 0.9)
    assert low == pytest.approx(50.95) and high == pytest.approx(950.05)
    assert percentile_interval(numpy.full(7, 3.0), 0.95) == (3.0, 3.0)


@pytest.mark.parametrize("samples, level", [(0, 0.95), (100, 0.0), (100, 1.0), (100, 95)])
def test_bad_settings_name_themselves(samples, level):
    with pytest.raises(ValueError, match=rf"got {samples}, {level}"):
        check_settings(samples, level)
