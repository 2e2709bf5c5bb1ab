"""Find identical or near-identical submissions of one exercise across a class, by their syntax tree.

Like MOSS and JPlag, code is compared as structure, never run: names, comments, docstrings and layout
are normalised away, what the exercise's starter already gave is left out, and the passages that many
students share (what the statement forces everyone to write) do not count as evidence of copying.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import math
import re
from dataclasses import dataclass

IDENTICAL = "idêntico"
NEAR = "quase idêntico"
# The exercise's reference solution, published in the site: a known source, compared like a student.
REFERENCE = "\x00solução de referência"  # no file's label can be this
# "Quase idêntico" is never shown as 100%: the trees differ, or the group would be "idêntico".
NEAR_MAX = 0.99

# Fewer tokens of a student's own than this, beyond the starter, is too little to call anything a copy.
MIN_OWN_TOKENS = 30
# Fingerprints are runs of this many consecutive tokens (MOSS's k-grams).
KGRAM = 8
# A k-gram present in more than this share of the class is what everyone writes, not a copy's trace.
COMMON_SHARE = 0.3
COMMON_FLOOR = 6
# Two submissions are near-identical when this share of the smaller one's distinctive fingerprints
# is in the other one too.
NEAR_THRESHOLD = 0.8
# Fewer distinctive fingerprints than this cannot support a "near-identical" call.
MIN_FINGERPRINTS = 20
# A hostile file must not make this section slow: its tokens beyond this are not compared.
MAX_TOKENS = 20_000

_BUILTINS = frozenset(dir(builtins))
_GENERIC_NAME = re.compile(r"(?<![^>])v\d+$")


@dataclass(frozen=True)
class SimilarGroup:
    kind: str  # IDENTICAL or NEAR
    members: tuple  # labels, in the order the caller gave them (never the reference's)
    score: float  # 1.0 for identical; the weakest link's overlap for near-identical (at most NEAR_MAX)
    reference: bool = False  # the reference solution is in the group: the members match a published source
    identical: tuple = ()  # in a near-identical group, the sets of members whose code is identical
    #                        (a set that starts with REFERENCE: those members are the reference itself)


def syntax_tree(source: str) -> ast.AST | None:
    """The source's syntax tree, or None for code that does not parse."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def shape(tree: ast.AST | None) -> list | None:
    """What this module compares of one submission (its tokens, see `_tokens`), from its syntax tree:
    a caller that already parsed the code (the CLI, while the other submissions run) hands the shapes
    to `find_similar` and `starter_copies` through `shapes`, and no file is tokenised twice."""
    return None if tree is None else _walk(tree)


def _tokens(source: str, shapes: dict | None = None) -> list | None:
    """The tree as a flat preorder list of tokens, names replaced by their order of first use (taken
    from `shapes`, {source: shape}, when the caller made it already)."""
    if shapes is not None and source in shapes:
        return shapes[source]
    return shape(syntax_tree(source))


def _walk(tree: ast.AST) -> list:
    names: dict = {}
    out: list = []
    stack = [tree]
    while stack and len(out) < MAX_TOKENS:
        node = stack.pop()
        if isinstance(node, str):  # a closing marker, so that nesting shapes differ
            out.append(node)
            continue
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and _is_docstring(body[0]):
            body = body[1:]
        out.append(type(node).__name__)
        label = _label(node, names)
        if label is not None:
            out.append(label)
        children = []
        for field, value in ast.iter_fields(node):
            if field == "body" and isinstance(value, list):
                value = body
            if isinstance(value, ast.AST):
                children.append(value)
            elif isinstance(value, list):
                children.extend(item for item in value if isinstance(item, ast.AST))
        stack.append(")")
        stack.extend(reversed(children))
    return out


def _is_docstring(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _label(node, names: dict) -> str | None:
    """What a node adds beyond its type: a canonical name, an attribute, an operator, a constant."""
    if isinstance(node, ast.Name):
        return _name(node.id, names)
    if isinstance(node, ast.arg):
        return _name(node.arg, names)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _name(node.name, names)
    if isinstance(node, ast.alias):
        return f"{node.name}>{_name(node.asname or node.name.split('.')[0], names)}"
    if isinstance(node, ast.Attribute):
        return "." + node.attr
    if isinstance(node, ast.keyword):
        return f"{node.arg}="
    if isinstance(node, ast.Constant):
        value = node.value
        # Strings keep their text (dict keys and file names carry the solution); long ones are cut.
        return f"{type(value).__name__}:{repr(value)[:40]}"
    if isinstance(node, (ast.BinOp, ast.AugAssign)):
        return type(node.op).__name__
    if isinstance(node, ast.UnaryOp):
        return type(node.op).__name__
    if isinstance(node, ast.BoolOp):
        return type(node.op).__name__
    if isinstance(node, ast.Compare):
        return ",".join(type(op).__name__ for op in node.ops)
    return None


def _name(name: str, names: dict) -> str:
    if name in _BUILTINS:
        return name
    return names.setdefault(name, f"v{len(names)}")


def _own_count(tokens: list, starter_grams: set) -> int:
    """How many tokens (generic, see `_generic`) a student wrote beyond the starter: those in no
    k-gram the starter also has."""
    covered = [False] * len(tokens)
    for i in range(len(tokens) - KGRAM + 1):
        if tuple(tokens[i:i + KGRAM]) in starter_grams:
            covered[i:i + KGRAM] = [True] * KGRAM
    return covered.count(False)


def _generic(tokens: list) -> list:
    # Fingerprints forget which name is which: one helper added at the top renumbers every name
    # after it, and that must not hide the rest of a copied file.
    return [_GENERIC_NAME.sub("v", token) for token in tokens]


def _kgrams(generic: list) -> set:
    return {tuple(generic[i:i + KGRAM]) for i in range(len(generic) - KGRAM + 1)}


def _digest(tokens: list) -> str:
    return hashlib.sha256("\x00".join(tokens).encode("utf-8", "surrogatepass")).hexdigest()


def find_similar(codes: dict, starter: str | None = None, reference: str | None = None,
                 shapes: dict | None = None) -> list:
    """Groups of labels in `codes` ({label: source}) whose code is identical or near-identical.

    Code that does not parse, or adds too little of its own to the starter, is never grouped. With
    `reference` (the exercise's published solution), a group that holds it says so (`reference`),
    even a group of one student. A label is in one group at most: a near-identical group takes in
    the identical copies it links. Groups come identical first, then by size and score; members keep
    the caller's order. `shapes`: {source: shape(syntax_tree(source))}, made beforehand by the caller.
    """
    if reference is not None:
        codes = {REFERENCE: reference, **codes}
    order = {label: i for i, label in enumerate(codes)}
    starter_tokens = _tokens(starter) if starter else None
    starter_digest = _digest(starter_tokens) if starter_tokens else None
    starter_grams = _kgrams(_generic(starter_tokens)) if starter_tokens else set()

    # One unit per distinct normalised tree: identical copies are one piece of evidence, not many.
    units: dict = {}
    for label, source in codes.items():
        tokens = _tokens(source, shapes) if isinstance(source, str) else None
        if tokens is None:
            continue
        digest = _digest(tokens)
        if digest == starter_digest:
            continue
        unit = units.get(digest)
        if unit is None:
            generic = _generic(tokens)
            if _own_count(generic, starter_grams) < MIN_OWN_TOKENS:
                continue
            unit = units[digest] = {"labels": [], "grams": _kgrams(generic) - starter_grams}
        unit["labels"].append(label)

    near = _near_groups(list(units.values()))
    linked = {label for g in near for label in g.members}
    groups = [
        SimilarGroup(IDENTICAL, tuple(unit["labels"]), 1.0)
        for unit in units.values()
        if len(unit["labels"]) > 1 and unit["labels"][0] not in linked
    ]
    groups.extend(near)
    groups.sort(key=lambda g: (g.kind != IDENTICAL, -len(g.members), -g.score, order[g.members[0]]))
    out = []
    for g in groups:
        members = tuple(label for label in sorted(g.members, key=order.__getitem__) if label != REFERENCE)
        score = 1.0 if g.kind == IDENTICAL else min(round(g.score, 3), NEAR_MAX)
        same = tuple(tuple(label for label in sorted(subset, key=order.__getitem__) if label != REFERENCE)
                     for subset in g.identical)
        # A subset that held the reference keeps it as its first item: those members are the very solution.
        same = tuple((REFERENCE, *t) if REFERENCE in subset else t for t, subset in zip(same, g.identical))
        out.append(SimilarGroup(g.kind, members, score, REFERENCE in g.members, tuple(t for t in same if t)))
    return out


def starter_copies(codes: dict, starter: str | None, shapes: dict | None = None) -> list:
    """The labels in `codes` whose code is the exercise's starter, unchanged (names, comments and
    formatting aside): handed in as given, never a copy of anyone, but worth a flag."""
    tokens = _tokens(starter) if starter else None
    if not tokens:
        return []
    digest = _digest(tokens)
    out = []
    for label, source in codes.items():
        mine = _tokens(source, shapes) if isinstance(source, str) else None
        if mine is not None and _digest(mine) == digest:
            out.append(label)
    return out


def _near_groups(units: list) -> list:
    """Units linked by a large overlap of their distinctive fingerprints, joined transitively."""
    prints = [unit["grams"] for unit in units]
    # Students, not units, decide what is common: ten identical copies share their k-grams ten times.
    weight = [len(unit["labels"]) for unit in units]
    seen: dict = {}
    for fingerprints, count in zip(prints, weight):
        for gram in fingerprints:
            seen[gram] = seen.get(gram, 0) + count
    students = sum(weight)
    common = max(COMMON_FLOOR, math.ceil(COMMON_SHARE * students))
    distinctive = [{g for g in fingerprints if seen[g] <= common} for fingerprints in prints]

    parent = list(range(len(units)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    links: list = []
    # Only pairs that share a fingerprint can be linked: an index keeps a class of hundreds quick.
    holders: dict = {}
    for i, fingerprints in enumerate(distinctive):
        for gram in fingerprints:
            holders.setdefault(gram, []).append(i)
    candidates = {(a, b) for members in holders.values() for a in members for b in members if a < b}
    # The published reference is a known source: what a student took from it counts however many
    # others took it too (a 30 % share of the class must not hide a one-literal change of it).
    reference = next((i for i, unit in enumerate(units) if REFERENCE in unit["labels"]), None)
    if reference is not None:
        candidates |= {(min(i, reference), max(i, reference)) for i in range(len(units))
                       if i != reference and prints[i] & prints[reference]}
    for a, b in sorted(candidates):
        x, y = distinctive[a], distinctive[b]
        if reference in (a, b):
            x, y = prints[a], prints[b]
        if len(x) < MIN_FINGERPRINTS or len(y) < MIN_FINGERPRINTS:
            continue
        # Containment, not Jaccard: lines added to a copy must not hide what it took.
        score = len(x & y) / min(len(x), len(y))
        if score >= NEAR_THRESHOLD:
            links.append((a, b, score))
            parent[root(a)] = root(b)

    clusters: dict = {}
    for a, b, score in links:
        cluster = clusters.setdefault(root(a), {"units": set(), "score": 1.0})
        cluster["units"].update((a, b))
        cluster["score"] = min(cluster["score"], score)
    return [
        SimilarGroup(NEAR, tuple(label for i in sorted(c["units"]) for label in units[i]["labels"]), c["score"],
                     identical=tuple(tuple(units[i]["labels"]) for i in sorted(c["units"]) if len(units[i]["labels"]) > 1))
        for c in clusters.values()
    ]
