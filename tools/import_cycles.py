#!/usr/bin/env python3
"""Import cycles between the source files of each crate under crates/.

    python3 tools/import_cycles.py [ROOT]

A file depends on another when it names a module the other file is:
`use crate::a::b`, `use super::x`, `self::x`, or a path starting with one
of its own child modules (`child::Item`), in `use` lines and in code alike.
A path is charged to the deepest file module it reaches (`crate::index::
IndexError` is `index/mod.rs`), or to the file a name re-exported there
(`pub use error::IndexError;`) comes from: a re-export composes, it is not
a home. A module inside a file (`mod tests {`, `mod json_path {`) is
part of that file, so its `super::` is the file itself. Prints each
cycle (a strongly connected component of more than one file) and exits 1
if there is one.
"""
import re
import sys
from pathlib import Path

PATH = re.compile(r"\b(crate|super|self)((?:\s*::\s*[A-Za-z_][A-Za-z0-9_]*)+)")


def modules(src):
    """Module path (tuple) -> file, for one crate's src/."""
    mods = {}
    for f in src.rglob("*.rs"):
        rel = f.relative_to(src).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] in ("mod", "lib", "main"):
            parts = parts[:-1]
        mods[tuple(parts)] = f
    return mods


TOKEN = re.compile(
    r'//[^\n]*|/\*.*?\*/|b?r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"'
    r"|b?'(?:\\.|[^'\\])'",
    re.S,
)


def strip(text):
    """The text less comments, strings and character literals."""
    return TOKEN.sub(lambda m: '""' if m.group(0)[-1] in "\"'#" else " ", text)


def expand(prefix, body):
    """`a::{b, c::{d, e}}` -> [a::b, a::c::d, a::c::e] (as segment lists)."""
    out = []
    depth, start, items = 0, 0, []
    for i, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    items.append(body[start:])
    for item in items:
        item = item.strip()
        if not item:
            continue
        m = re.match(r"^(.*?)\{(.*)\}$", item, re.S)
        if m:
            head = [s for s in re.split(r"\s*::\s*", m.group(1).strip()) if s]
            out += expand(prefix + head, m.group(2))
        else:
            item = re.sub(r"\s+as\s+\w+$", "", item)
            out.append(prefix + [s for s in re.split(r"\s*::\s*", item) if s])
    return out


def paths(text):
    """Every path in the file's `use` items and code, as segment lists."""
    found = []
    for m in re.finditer(r"\buse\s+([^;]*);", text):
        found += expand([], m.group(1))
    rest = re.sub(r"\buse\s+[^;]*;", "", text)
    for m in PATH.finditer(rest):
        found.append([m.group(1)] + [s for s in re.split(r"\s*::\s*", m.group(2)) if s])
    for m in re.finditer(r"\b([a-z_][a-z0-9_]*)\s*::\s*([A-Za-z_][A-Za-z0-9_]*)", rest):
        found.append([m.group(1), m.group(2)])
    return found


def reexports(mods, me, text):
    """Name -> module, for the names `me` re-exports with `pub use`."""
    children = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text, re.M))
    out = {}
    for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]*);", text):
        for p in expand([], m.group(1)):
            if len(p) < 2 or p[-1] in ("*", "self"):
                continue
            t = resolve(mods, me, children, p[:-1] + ["\0"], {})
            if t is not None:
                out[p[-1]] = t
    return out


def resolve(mods, me, children, p, names):
    if p[0] == "crate":
        base, rest = (), p[1:]
    elif p[0] in ("super", "self"):
        base, rest = me, p
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    elif p[0] in children:
        base, rest = me, p
    else:
        return None
    for seg in rest:
        if base + (seg,) in mods:
            base = base + (seg,)
        else:
            return names.get(base, {}).get(seg, base)
    return base


def deps(mods, me, text, names):
    children = set(re.findall(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", text, re.M))
    out = set()
    for p in paths(text):
        target = resolve(mods, me, children, p, names)
        if target is not None and target != me and target in mods:
            out.add(target)
    return out


def inline_as_self(text):
    """Inside an inline `mod name { ... }`, `super::` is this file: count it
    as `self::`."""
    for m in reversed(list(re.finditer(r"\bmod\s+\w+\s*\{", text))):
        depth, end = 0, len(text)
        for i in range(m.end() - 1, len(text)):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                end = i + 1
                break
        text = text[: m.end()] + re.sub(r"\bsuper\s*::", "self::", text[m.end() : end]) + text[end:]
    return text


def sccs(graph):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    found = 0
    for src in sorted(root.glob("crates/*/src")):
        mods = modules(src)
        texts = {m: strip(f.read_text(encoding="utf-8")) for m, f in mods.items()}
        names = {m: reexports(mods, m, t) for m, t in texts.items()}
        graph = {}
        for mod, f in mods.items():
            text = re.sub(r"\bsuper\s*::\s*\*", "self::*", texts[mod])
            graph[mod] = deps(mods, mod, inline_as_self(text), names)
        for comp in sccs(graph):
            if len(comp) > 1:
                found += 1
                names = sorted(str(mods[m].relative_to(root)) for m in comp)
                print("cycle:", " <-> ".join(names))
                for m in sorted(comp):
                    inner = sorted(str(mods[d].relative_to(root)) for d in graph[m] if d in comp)
                    print(f"  {mods[m].relative_to(root)} -> {', '.join(inner)}")
    if not found:
        print("no import cycle between source files")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
