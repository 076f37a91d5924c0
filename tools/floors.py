#!/usr/bin/env python3
"""Imports that go up a floor of the library (ARCHITECTURE.md, "Floors of
the library").

    python3 tools/floors.py [ROOT]

Every top-level module of crates/parallels/src stands on a floor: the
ground (0), the stages (1), the commands (2). A file may import its own
floor and the floors below; an import of a higher floor is printed, and
the exit code is 1 if there is one. A dependency is charged as
tools/import_cycles.py charges it (a `use` or a path naming a module, a
`pub use` re-export the file the name comes from). A top-level module
missing from FLOORS is an error too, so a new module gets a floor.
"""
import re
import sys
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
from import_cycles import deps, inline_as_self, modules, reexports, strip  # noqa: E402

FLOORS = {
    "chars": 0, "plumbing": 0, "encoder": 0,
    "read": 1, "corpus": 1, "normalize": 1, "segment": 1, "align": 1, "mine": 1, "output": 1,
    "collate": 2, "scan": 2, "dedup": 2, "index": 2, "report": 2, "diff": 2, "eval": 2, "ladder": 2,
}
NAMES = ["ground", "stages", "commands"]


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    src = root / "crates/parallels/src"
    mods = modules(src)
    texts = {m: strip(f.read_text(encoding="utf-8")) for m, f in mods.items()}
    names = {m: reexports(mods, m, t) for m, t in texts.items()}
    found = 0
    for top in sorted({m[0] for m in mods if m} - FLOORS.keys()):
        found += 1
        print(f"{top}: a top-level module on no floor; give it one in tools/floors.py and ARCHITECTURE.md")
    for mod, f in sorted(mods.items()):
        if not mod or mod[0] not in FLOORS:
            continue
        text = re.sub(r"\bsuper\s*::\s*\*", "self::*", texts[mod])
        for d in sorted(deps(mods, mod, inline_as_self(text), names)):
            if d and d[0] in FLOORS and FLOORS[d[0]] > FLOORS[mod[0]]:
                found += 1
                print(
                    f"{f.relative_to(root)} ({NAMES[FLOORS[mod[0]]]}) -> "
                    f"{mods[d].relative_to(root)} ({NAMES[FLOORS[d[0]]]})"
                )
    if not found:
        print("no import goes up a floor")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
