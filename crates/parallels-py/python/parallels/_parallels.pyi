"""Typed stubs of the extension module (see ``parallels/__init__.py`` for the API)."""

import os
from typing import Dict, List, Optional, Sequence, Tuple, Union

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
def align_files(paths: Sequence[_Path], *, semantic: bool = True, max_size_mib: int = ...) -> str: ...
def check_scan_options(
    *,
    max_df: Optional[int] = None,
    min_seeds: Optional[int] = None,
    min_significance: Optional[float] = None,
    min_specificity: Optional[float] = None,
    all: bool = False,
    memory_mib: Optional[int] = None,
    translations: bool = True,
) -> None: ...
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
    min_specificity: Optional[float] = None,
    all: bool = False,
    memory_mib: Optional[int] = None,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
    translations: bool = True,
    output: Optional[_Path] = None,
    format: str = "jsonl",
    work_dir: Optional[_Path] = None,
    table: Optional[bytes] = None,
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

SCAN_DEFAULTS: Dict[str, Union[int, float]]
DEDUP_DEFAULTS: Dict[str, Union[int, float]]

def settle_pairs(
    a: Sequence[Sequence[int]],
    b: Sequence[Sequence[int]],
    *,
    threshold: Optional[float] = None,
    perms: Optional[int] = None,
    verify: str = "exact",
) -> Tuple[List[int], List[float]]: ...
def exact_similarities(
    a: Sequence[str],
    b: Sequence[str],
    *,
    ngram: Optional[int] = None,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
) -> List[float]: ...
def keepers(
    members: Sequence[Sequence[int]],
    chars: Sequence[Sequence[int]],
    values: Sequence[Sequence[Optional[float]]],
    *,
    keep: str = "first",
) -> List[int]: ...

def feature_counts(
    texts: List[str], *, script: bool = True, numbers: bool = True, footnotes: bool = True, boilerplate: bool = True
) -> Tuple[int, bytes]: ...

class FeatureTable:
    def __init__(self, sentences: int, buckets: Sequence[int], counts: Sequence[int]) -> None: ...
    @staticmethod
    def of_blocks(blocks: Sequence[bytes]) -> FeatureTable: ...

def align_candidates(
    a: Sequence[int],
    b: Sequence[int],
    k: Sequence[int],
    docs: Sequence[int],
    texts: Sequence[str],
    shared_pos: Sequence[Sequence[int]],
    shared_df: Sequence[Sequence[int]],
    table: FeatureTable,
    *,
    min_significance: Optional[float] = None,
    min_specificity: Optional[float] = None,
    all: bool = False,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
) -> bytes: ...
def clusters(
    passages: Sequence[Tuple[int, int, int, int, int, int]],
) -> Tuple[List[int], List[List[Tuple[int, int, int]]], List[Tuple[int, int, int]]]: ...
def group_seeds(
    blocks: Sequence[bytes], max_df: int, parts: int
) -> Tuple[List[Tuple[int, bytes]], List[Tuple[int, bytes]]]: ...
def scan_blocks(
    texts: Sequence[str],
    docs: Sequence[int],
    groups: Sequence[Optional[int]],
    parts: int,
    *,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
) -> Tuple[List[Tuple[int, bytes]], List[Tuple[int, bytes]]]: ...
def shared_shares(chars: Sequence[int], spans: Sequence[Sequence[Tuple[int, int]]]) -> List[float]: ...
def place_edges(
    docs: Sequence[int], starts: Sequence[int], ends: Sequence[int], nodes: Sequence[int]
) -> Tuple[List[int], List[int]]: ...
def cluster_members(
    clusters: Sequence[Sequence[Tuple[int, int, int]]],
) -> List[Tuple[List[Tuple[int, int, int]], Tuple[int, int, int]]]: ...
def documents(ids: Sequence[Optional[str]], texts: Sequence[Optional[str]]) -> List[bool]: ...
def listed_similarities(similarities: Sequence[float]) -> List[float]: ...
def bucket_pairs(buckets: Sequence[Sequence[int]], cap: int) -> Tuple[List[int], List[int]]: ...
def languages(texts: Sequence[str]) -> List[Optional[str]]: ...
def compared_languages(
    languages: Sequence[Optional[str]], counts: Sequence[int], *, translations: bool = True
) -> Dict[str, int]: ...
def translation_units(
    texts: Sequence[str],
    docs: Sequence[int],
    languages: Sequence[str],
    *,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
) -> bytes: ...
def translation_candidates(blocks: Sequence[bytes]) -> bytes: ...
def align_translations(
    a: Sequence[int],
    b: Sequence[int],
    pair_a: Sequence[Sequence[int]],
    pair_b: Sequence[Sequence[int]],
    margin: Sequence[Sequence[float]],
    chain: Sequence[int],
    docs: Sequence[int],
    texts: Sequence[str],
    *,
    script: bool = True,
    numbers: bool = True,
    footnotes: bool = True,
    boilerplate: bool = True,
) -> bytes: ...
