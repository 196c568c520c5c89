"""Which `anyOf`/`oneOf` member of the head is which of the base, wherever it moved in the list.

Members are paired by what they are, then by what they accept, never by position:
1. the same member: the same `$ref` target, title, `type`+`format`, `const` or content (`Member.key`), one to one
   in the order written when a key repeats;
2. an equivalent one: written alike once `$ref`s are followed (a member moved from under a `$ref` to inline, or
   back; an enum or `required` reordered), or accepting exactly what it accepted;
3. a wider one (it accepts all the old member accepted): one to one where the members allow it, each old member
   with the tightest new member that fits, so that two members changed in place are not both paired with the
   widest; an old member left over with a wider new member that is paired already was merged into it;
4. a narrower one (the old member accepts all it accepts), one to one.
What is left was removed or added. The walk compares each pair like any schema.

Steps 2 to 4 weigh each member left over against each other one (a subsumption check per pair). A union is not
allowed to make that quadratic: when more than `MAX_WEIGHED` pairs are left after step 1 (about 64 members
changed on each side), the members left over are paired in the order written instead (the first changed one with
the first new one, and so on), the surplus removed or added: a linear pairing with a linear number of checks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

from accessgov_tools.diffcheck.resolve import Member
from accessgov_tools.diffcheck.subsume import Subsumption

Pairs = list[tuple[Member, Member]]
_RANKED = 16  # candidates ranked by how tight they are (each against each): more are tried in the order written
MAX_WEIGHED = 64 * 64  # (members left) x (members left) weighed against each other, beyond which: in order written


def pair_members(
    base: Sequence[Member], head: Sequence[Member], wider: Subsumption, narrower: Subsumption, tighter: Subsumption
) -> tuple[Pairs, list[Member], list[Member]]:
    """(pairs, removed, added): `wider` is the head's schemas over the base's, `narrower` the base's over the
    head's, `tighter` the head's over the head's (which of two candidates accepts less)."""
    pairs: Pairs = []
    gone: list[Member] = []
    by_key: dict[str, deque[Member]] = {}
    for member in head:
        by_key.setdefault(member.key, deque()).append(member)
    taken: set[int] = set()
    for old in base:  # 1: by what they are (a key that repeats: one to one in the order written)
        same = by_key.get(old.key)
        if same:
            member = same.popleft()
            taken.add(id(member))
            pairs.append((old, member))
        else:
            gone.append(old)
    open_head = [member for member in head if id(member) not in taken]
    if not gone or not open_head:
        return pairs, gone, open_head
    if len(gone) * len(open_head) > MAX_WEIGHED:  # too many to weigh each against each: in the order written
        paired = min(len(gone), len(open_head))
        pairs.extend(zip(gone[:paired], open_head[:paired], strict=True))
        return pairs, gone[paired:], open_head[paired:]

    def equivalent(old: Member, new: Member) -> bool:
        return wider.same(new.node, old.node) or (
            wider.accepts(new.node, old.node) and narrower.accepts(old.node, new.node)
        )

    gone = _matched(gone, open_head, equivalent, pairs)  # 2
    wide = {id(old): [m for m in open_head if wider.accepts(m.node, old.node)] for old in gone}
    for candidates in wide.values():
        if 1 < len(candidates) <= _RANKED:  # the tightest first: the one that accepts fewest of the others
            inside = {id(m): sum(tighter.accepts(m.node, o.node) for o in candidates if o is not m) for m in candidates}
            candidates.sort(key=lambda m: inside[id(m)])
    left = _matched(gone, open_head, lambda old, new: any(new is m for m in wide[id(old)]), pairs, wide)  # 3
    unmerged: list[Member] = []
    for old in left:  # merged into a wider member another old one was paired with
        if wide[id(old)]:
            pairs.append((old, wide[id(old)][0]))
        else:
            unmerged.append(old)
    gone = _matched(unmerged, open_head, lambda old, new: narrower.accepts(old.node, new.node), pairs)  # 4
    return pairs, gone, open_head


def _matched(
    olds: list[Member],
    news: list[Member],
    fits: Callable[[Member, Member], bool],
    pairs: Pairs,
    preferred: dict[int, list[Member]] | None = None,
) -> list[Member]:
    """Pair as many of `olds` with distinct `news` as `fits` allows (Kuhn's augmenting paths: a member taken
    by an earlier old one is handed on when that one can take another), each trying its `preferred` order (else
    the order written) first; append the pairs in the base's order, take the paired news out of `news`, and
    return the olds left unpaired."""
    open_ids = {id(m) for m in news}
    options = {
        id(old): [m for m in (preferred or {}).get(id(old), news) if id(m) in open_ids and fits(old, m)] for old in olds
    }
    holder: dict[int, Member] = {}  # id(new) -> the old member it is paired with

    def place(old: Member, seen: set[int]) -> bool:
        for new in options[id(old)]:
            if id(new) in seen:
                continue
            seen.add(id(new))
            if id(new) not in holder or place(holder[id(new)], seen):
                holder[id(new)] = old
                return True
        return False

    for old in olds:
        place(old, set())
    partner = {id(holder[id(new)]): new for new in news if id(new) in holder}
    pairs.extend((old, partner[id(old)]) for old in olds if id(old) in partner)
    news[:] = [m for m in news if id(m) not in holder]
    return [old for old in olds if id(old) not in partner]
