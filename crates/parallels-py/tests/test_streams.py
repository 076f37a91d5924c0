"""The Python side of issue 47 (nothing lost, nothing unbounded): a pipe
or a device given to ``align_files`` is read up to the size limit, no
further, and a list of texts given to ``scan``/``dedup`` (which read
strings as paths) is answered with how to give texts."""

from __future__ import annotations

import os

import pytest
from conftest import ROOT

import parallels

EXAMPLE = str(ROOT / "examples" / "v1.txt")
OTHER = str(ROOT / "examples" / "v2.txt")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_align_files_reads_a_device_up_to_the_limit_only():
    with pytest.raises(ValueError, match=r"/dev/zero: more than the limit of 1048576 bytes .*max_size_mib=1"):
        parallels.align_files(["/dev/zero", EXAMPLE], max_size_mib=1)
    # The default limit (the command's --max-size) cuts it too.
    with pytest.raises(ValueError, match=r"/dev/zero: more than the limit"):
        parallels.align_files(["/dev/zero", EXAMPLE])


def test_align_files_still_aligns_files():
    out = parallels.align_files([EXAMPLE, OTHER], semantic=False, max_size_mib=1)
    assert out["schema"] == "parallels.align/1"
    assert len(out["documents"]) == 2


@pytest.mark.parametrize("call", [parallels.scan, parallels.dedup])
def test_a_list_of_texts_is_answered_with_how_to_give_texts(call):
    texts = ["魏斯明德之围，城中粮尽。", "守将出降，百姓四散。"]
    with pytest.raises(ValueError, match=r"no such file or folder\. scan and dedup read strings as paths.*pyarrow\.table"):
        call(texts)
