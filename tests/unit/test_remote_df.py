"""The server-side room check reads `df -Pk`; recorded real output, and what it must not guess at."""

from __future__ import annotations

from sshbench.targets.remote import parse_df
from tests.conftest import recorded


def test_available_kibibytes_become_bytes() -> None:
    text = recorded("df-Pk-coreutils-9.1.txt")
    available = int(text.splitlines()[1].split()[3])
    assert parse_df(text) == available * 1024


def test_a_long_filesystem_name_stays_on_one_line_in_posix_format() -> None:
    text = ("Filesystem                                   1024-blocks  Used Available Capacity Mounted on\n"
            "/dev/mapper/a-very-long-volume-group-name-root   1000000 200000    800000      20% /\n")
    assert parse_df(text) == 800000 * 1024


def test_output_that_is_not_posix_df_is_unknown_not_zero() -> None:
    assert parse_df("") is None
    assert parse_df("df: /nowhere: No such file or directory\n") is None
    assert parse_df("Filesystem Size Used Avail Use% Mounted on\ntmpfs 12G 0 12G 0% /dev/shm\n") is None
