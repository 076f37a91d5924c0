"""Typed stubs of the extension module (see ``parallels/__init__.py`` for the API)."""

import os
from typing import List, Optional, Sequence, Tuple, Union

_Path = Union[str, "os.PathLike[str]"]

ALIGN_SCHEMA: str
SCAN_SCHEMA: str
PARQUET_SCHEMA: str

def align(
    texts: Sequence[str],
    ids: Sequence[str],
    *,
    sigmas: Optional[float] = None,
    gap: Optional[int] = None,
    semantic: bool = True,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
    max_size_mib: int = ...,
) -> str: ...
def align_files(paths: Sequence[_Path], *, semantic: bool = True) -> str: ...
def scan(
    inputs: Sequence[_Path],
    *,
    id: str = "id",
    text: str = "text",
    group: Optional[str] = None,
    group_by_dir: bool = False,
    strict: bool = True,
    max_df: Optional[int] = None,
    min_seeds: Optional[int] = None,
    min_significance: Optional[float] = None,
    all: bool = False,
    memory_mib: Optional[int] = None,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
    output: Optional[_Path] = None,
    format: str = "jsonl",
    work_dir: Optional[_Path] = None,
) -> Tuple[bytes, bytes, bytes, str]: ...
def dedup(
    inputs: Sequence[_Path],
    *,
    id: str = "id",
    text: str = "text",
    strict: bool = True,
    threshold: Optional[float] = None,
    ngram: Optional[int] = None,
    perms: Optional[int] = None,
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    verify: str = "exact",
    keep: str = "first",
    keep_field: Optional[str] = None,
    paragraphs: bool = False,
    min_paragraph_tokens: Optional[int] = None,
    memory_mib: Optional[int] = None,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
    output: Optional[_Path] = None,
    format: str = "jsonl",
) -> Tuple[bytes, str]: ...
def fingerprints(
    texts: List[str], *, script: bool = True, numbers: bool = True, footnotes: bool = True, boilerplate: bool = True
) -> bytes: ...
def minhash(
    texts: List[str],
    *,
    threshold: Optional[float] = None,
    ngram: Optional[int] = None,
    perms: Optional[int] = None,
    bands: Optional[int] = None,
    rows: Optional[int] = None,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
) -> bytes: ...
