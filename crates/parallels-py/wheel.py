"""Pack the Python package into a wheel around an extension module built
by cargo: ``python wheel.py LIB OUT_DIR``.

``.ci/run`` builds the extension module with the same cargo command (same
features, profile and target folder) as the tests, so that the
dependencies are compiled once; maturin would compile them again with
another set of features. This packs what maturin packs for ``pip install
./crates/parallels-py`` (the ``python/parallels`` sources and the module as
``parallels/_parallels.abi3.so``) into an abi3 wheel for this platform,
for CI only: users build with pip or maturin (README).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sys
import sysconfig
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _version() -> str:
    cargo = (HERE.parents[1] / "Cargo.toml").read_text(encoding="utf-8")
    m = re.search(r'^\[workspace\.package\][^\[]*?^version\s*=\s*"([^"]+)"', cargo, re.M | re.S)
    if not m:
        raise SystemExit("no workspace version in Cargo.toml")
    return m.group(1)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main(lib: str, out: str) -> str:
    version = _version()
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    tag = f"cp39-abi3-{platform}"
    dist = f"parallels-{version}.dist-info"
    files = {}
    for p in sorted((HERE / "python" / "parallels").iterdir()):
        if p.is_file() and p.suffix in (".py", ".pyi", ".typed"):
            files[f"parallels/{p.name}"] = p.read_bytes()
    files["parallels/_parallels.abi3.so"] = Path(lib).read_bytes()
    project = (HERE / "pyproject.toml").read_text(encoding="utf-8")
    requires = re.search(r"^dependencies\s*=\s*\[(.*?)\]", project, re.M | re.S).group(1)
    meta = [
        "Metadata-Version: 2.1",
        "Name: parallels",
        f"Version: {version}",
        "Requires-Python: >=3.9",
    ] + [f"Requires-Dist: {r}" for r in re.findall(r'"([^"]+)"', requires)]
    files[f"{dist}/METADATA"] = ("\n".join(meta) + "\n").encode()
    files[f"{dist}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: parallels-wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"
    ).encode()
    record = [_record_line(n, d) for n, d in files.items()] + [f"{dist}/RECORD,,"]
    files[f"{dist}/RECORD"] = ("\n".join(record) + "\n").encode()
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"parallels-{version}-{tag}.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            z.writestr(info, data, zipfile.ZIP_DEFLATED)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: python wheel.py LIB OUT_DIR")
    print(main(sys.argv[1], sys.argv[2]))
