import pytest
from hypothesis import given
from hypothesis import strategies as st

from sshbench.vocabulary.errors import UsageError
from sshbench.vocabulary.units import format_bytes, parse_size


@pytest.mark.parametrize(("text", "expected"), [
    ("1048576", 1048576), ("512MiB", 512 * 2**20), ("2GB", 2 * 10**9), ("1G", 2**30), ("1g", 2**30),
    ("64 KiB", 65536), ("1.5GiB", 3 * 2**29), ("10kb", 10000), ("7B", 7), ("1T", 2**40),
])
def test_sizes(text: str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "0", "-1", "1.5", "12XB", "G", "1e9", "0.5B", "1 2"])
def test_bad_sizes_name_the_problem(text: str) -> None:
    with pytest.raises(UsageError, match="bad size"):
        parse_size(text)


@given(st.integers(min_value=1, max_value=2**50), st.sampled_from(["", "B", "KiB", "MiB", "GiB", "K", "M", "G"]))
def test_binary_units_multiply_exactly(n: int, unit: str) -> None:
    scale = {"": 1, "B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "K": 2**10, "M": 2**20, "G": 2**30}[unit]
    assert parse_size(f"{n}{unit}") == n * scale


def test_format_bytes() -> None:
    assert format_bytes(2**30) == "1 GiB"
    assert format_bytes(300) == "300 B"
    assert format_bytes(1.5 * 2**20) == "1.5 MiB"
