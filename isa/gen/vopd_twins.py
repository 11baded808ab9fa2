"""The instruction each VOPD half performs: the manual names a dual opcode V_DUAL_<X> after the
VALU instruction V_<X> it is (RDNA4 7.8 "Dual Issue VALU (VOPD)", page 82, states the halves'
rules by those names: "V_MOV_B32 when in OPY uses SRC2 ...", "V_CNDMASK_B32 is the "VOP2" form
that uses VCC as the select"). The result, tables["vopd_twins"], is one row (dual name, name,
format) per dual opcode whose V_<X> the family has in VOP2, VOP1 or VOP3 (the first of those
its opcode tables list); a half without one (RDNA3's V_DUAL_DOT2ACC_F32_BF16, RDNA4's
V_DUAL_DOT2ACC_*) has no row and is its own definition. Read by dsl.signature.vopd_base, whose
answer every consumer of a VOPD half keys its facts and semantics on."""
from __future__ import annotations

_PREFIX, _TWIN_PREFIX = "V_DUAL_", "V_"
_TWIN_FORMATS = ("VOP2", "VOP1", "VOP3")


def twin_name(name: str) -> str | None:
    """V_<X> for a dual opcode's name V_DUAL_<X> (the generator's one reading of the naming), else None."""
    return _TWIN_PREFIX + name[len(_PREFIX):] if name.startswith(_PREFIX) else None


def vopd_twins(instructions: list[dict]) -> list[tuple[str, str, str]]:
    """(dual name, name, format) for each VOPD instruction with a VOP2/VOP1/VOP3 namesake, sorted."""
    first: dict[str, str] = {}
    for d in instructions:
        if d["format"] in _TWIN_FORMATS:
            first.setdefault(d["name"], d["format"])
    out = set()
    for d in instructions:
        twin = twin_name(d["name"]) if d["format"] == "VOPD" else None
        if twin in first:
            out.add((d["name"], twin, first[twin]))
    return sorted(out)
