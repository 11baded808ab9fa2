"""Image instructions: LLVM text -> fields, one handler for RDNA3/RDNA3.5's MIMG (with its NSA
form: a VGPR list `[v1, v4, v7]`, one address per field, and the dword holding ADDR1..ADDR4)
and RDNA4's VIMAGE / VSAMPLE, driven by the format's generated fields: which address fields
it has (VADDR + ADDR1..4, or VADDR0..4), how it holds the resource and sampler (SRSRC/SSAMP
in units of 4 SGPRs, or RSRC/SAMP as register codes), its cache policy (GLC/SLC/DLC bits,
or TH/SCOPE) and which flag bits it has (UNRM, R128, A16, TFE, LWE, D16).

The register widths written must be those the memory records give (isa.memory_registers):
the data VGPRs by DMASK / D16 / TFE (`image_data_dwords`), the address VGPRs by DIM / A16 and
the opcode's generated address components (`image_address_words` over isa.memory_access.image_address;
a ray query's groups, `signature.ray_address_groups`),
with LLVM 22's forms: a sequential address in a VGPR tuple of its length (an 8-VGPR tuple also holds
5 to 7 words), no address longer than the opcode's longest (no MSAA dim where its address table
group lists no MSAA surface type: sampling, gathers, the mip forms). Anything else is refused as
LLVM refuses it, at its line:column (the operand or modifier no form takes; the mnemonic for a data
or address size a form holds but DIM / DMASK do not ask for, the message naming the operand): wrong
widths, an atomic DMASK other than 0x1/0x3/0xf
or data past a 64-bit value (two for cmpswap), a DMASK with other than one bit where four texels of
one channel return (gathers, image_msaa_load: isa.memory_access.gathers_four), a non-MSAA dim where
the group's rows list MSAA types alone (image_msaa_load), d16 where the data are not converted
texels, null as resource or sampler. Also LLVM's `dim:2D` short names and `off` as the data of a
sample returning nothing. tests/test_dsl_asm_image.py holds it against
LLVM 22's corpora, mutated corpus lines and LLVM 22's refusals."""
from __future__ import annotations

from functools import lru_cache

from isa.memory_access import (gathers_four, image_address, memory_access, memory_effects, ray_query, takes_d16,
                               takes_sampler)
from isa.memory_registers import image_address_words, image_data_dwords, image_dims

from . import syntax
from .encode_rdna4 import cache_policy
from .operands import OperandError, Reg, Special
from .signature import image_address_forms, ray_address_groups

# modifier -> field; each is written only where the format has the field
_FLAGS = (("unorm", "UNRM"), ("glc", "GLC"), ("slc", "SLC"), ("dlc", "DLC"), ("r128", "R128"), ("a16", "A16"),
          ("tfe", "TFE"), ("lwe", "LWE"), ("d16", "D16"))
_DIM_CODES = {name: code for code, name in enumerate(syntax.MIMG_DIM_NAMES)}
_MSAA_DIMS = frozenset(code for name, code in _DIM_CODES.items() if "MSAA" in name)
_ATOMIC_DMASKS = (0x1, 0x3, 0xf)          # LLVM 22: "invalid atomic image dmask" otherwise


def _name(d) -> str:
    return d.name.lower()


def address_fields(fields) -> list[str]:
    """The address fields of an image format, the first (VADDR / VADDR0) first."""
    if "VADDR" in fields:      # MIMG: VADDR, then the NSA dword's ADDR1..ADDR4
        return ["VADDR"] + sorted((n for n in fields if n.startswith("ADDR") and n[4:].isdigit()), key=lambda n: int(n[4:]))
    return sorted((n for n in fields if n.startswith("VADDR") and n[5:].isdigit()), key=lambda n: int(n[5:]))


def _dim_code(mn: str, mods: dict) -> int:
    """dim:SQ_RSRC_IMG_<name> or LLVM's short form dim:<name> -> the DIM field's code."""
    if "dim" not in mods:
        raise OperandError(f"{mn}: missing dim operand (dim:SQ_RSRC_IMG_1D .. dim:SQ_RSRC_IMG_2D_MSAA_ARRAY)")
    dim = mods.pop("dim")
    name = getattr(dim, "name", None)
    code = _DIM_CODES.get(name.upper().removeprefix("SQ_RSRC_IMG_")) if isinstance(name, str) else None
    if code is None:
        raise OperandError(f"{mn}: dim: expected one of {', '.join('SQ_RSRC_IMG_' + n for n in _DIM_CODES)}, "
                           f"got {name or dim}", modifier="dim")
    return code


def _flags(d, F, fields, mods, allowed) -> None:
    mn = _name(d)
    for key, field in _FLAGS:
        if key in allowed and mods.pop(key, False):
            if field not in fields:
                raise OperandError(f"{mn}: {key}: its {d.format} encoding has no {field} bit", modifier=key)
            if key == "d16" and not takes_d16(d):
                raise OperandError(f"{mn}: d16: its data are not format-converted texels, so not 16-bit "
                                   f"(the manual's D16 field: allowed with image_sample*, image_gather4*, "
                                   f"image_msaa_load, image_load(_mip), image_store(_mip))", modifier=key)
            F[field] = 1


def _scalar(enc, v, F, what: str, n: int, fields, field: str) -> None:
    """The resource (n SGPRs) or sampler: SGPRs or TTMPs (not null or another special register);
    MIMG holds the first register's code / 4, RDNA4 the code."""
    if isinstance(v, Special):
        raise OperandError(f"{_name(F.d)}: {what}: expected {n} SGPRs (s[..]) holding the "
                           f"{'sampler' if what == 'samp' else 'resource'}, got {v}", v)
    code = enc.sreg_code(v, F, what, n)
    F[field] = code // 4 if fields[field][1] < 8 else code


def _address_widths(d, shape: str, mn, addrs, nsa: bool, slots: int, words: int, ray: bool, a16: bool):
    """Address VGPRs not as wide as DIM / A16 / the suffixes ask, as LLVM refuses them: an address
    no form of the opcode holds is refused here, at the operand (LLVM's operand match); one a
    form holds but of another size is returned, for `image` to raise at the mnemonic with LLVM's
    whole-instruction checks ("image address size does not match dim and a16"). LLVM 22's forms
    hold 1 up to the longest address of the dims an opcode takes (none MSAA where its address
    table group lists no MSAA type: signature.image_address_forms); a sequential address also
    that rounded up to a power of two (image_sample's 2D_MSAA_ARRAY address, 4 VGPRs, fits
    v[0:3] but no NSA list); an NSA list a range only as its last address, with every field
    filled."""
    given = [getattr(a, "count", 1) for a in addrs]
    if ray:
        groups = list(ray_address_groups(d, a16))
        ok = given == groups if nsa else given == [sum(groups)]
        want = f"{groups} (the ray's origin, direction, ... groups)" if nsa else f"[{sum(groups)}]"
        if not ok:      # at the first group as wide as it should not be (LLVM 22 points at it), else the list
            bad = next((a for a, g, w in zip(addrs, given, groups) if g != w), addrs if len(addrs) > 1 else addrs[0]) \
                if nsa else addrs[0]
            raise OperandError(f"{mn}: vaddr: {given if nsa else given[0]} address VGPRs where {shape} asks for "
                               f"{want} (LLVM: image address size does not match dim and a16)", bad)
        return None
    longest = max(image_address_forms(d)[0])
    if nsa:
        n = min(words, slots)
        want = [1] * (n - 1) + [words - n + 1]
        ok = given == want and words <= longest
        if words > longest and not ok and len(addrs) > longest:
            raise OperandError(f"{mn}: vaddr: {shape} asks for {words} address VGPRs; LLVM has no form of {mn} "
                               f"as a list longer than {longest} (the surface types of its address table group: no "
                               f"MSAA dim where it lists none)", None, modifier="dim")
        last = given[-1]
        if last > 1 and (len(addrs) < slots or last > longest - (slots - 1)):
            raise OperandError(f"{mn}: vaddr: {addrs[-1]}: LLVM has no form of {mn} with this range as address "
                               f"{len(addrs)} (a list's last address is a range only in its field {slots}, of at "
                               f"most {max(1, longest - (slots - 1))} VGPRs)", addrs[-1])
    else:   # one tuple: LLVM's VGPR classes; 8 holds 5 to 7 words, past 12 only 16
        sizes = set(range(1, longest + 1)) | {1 << (longest - 1).bit_length()}
        allowed = ({16 if words > 12 else words} | ({8} if 5 <= words <= 7 else set())) & sizes
        ok = given[0] in allowed
        want = " or ".join(map(str, sorted(allowed)))
        if given[0] not in sizes:
            raise OperandError(f"{mn}: vaddr: {addrs[0]} is {given[0]} VGPRs; LLVM has no form of {mn} with an "
                               f"address of {given[0]} VGPRs (1 to {longest}, or {max(sizes)}); {shape} asks for "
                               f"{want or words}", addrs[0])
    if ok:
        return None
    if words > longest:
        return OperandError(f"{mn}: vaddr: {_vgprs(addrs)}: {shape} asks for {words} address VGPRs; LLVM has no "
                            f"form of {mn} {'as a list ' if nsa else ''}longer than {longest} (the surface types of "
                            f"its address table group: no MSAA dim where it lists none)", at_mnemonic=True)
    return OperandError(f"{mn}: vaddr: {_vgprs(addrs)}: {given if nsa else given[0]} address VGPRs where {shape} "
                        f"asks for {want} (LLVM: image address size does not match dim and a16)", at_mnemonic=True)


def _vgprs(addrs) -> str:
    return f"[{', '.join(map(str, addrs))}]" if len(addrs) > 1 else str(addrs[0])


@lru_cache(maxsize=None)
def data_forms(d) -> frozenset[int]:
    """The data widths LLVM 22 has a form of `d` for: those some dmask, d16 and tfe ask for (an
    atomic's value, or two for cmpswap's compare, each plus the TFE dword), but no gather with
    16-bit texels and a status dword. Data of another width match no form: LLVM refuses them at
    the operand; data of one of these widths that the modifiers do not ask for, at the mnemonic
    ("image data size does not match dmask, d16 and tfe")."""
    access = memory_access(d, True)
    if access.direction == "atomic":
        natural = access.data_dwords or 1
        return frozenset(range(natural, 2 * natural + 2))
    gather, d16s = image_address(d).gather, (False, True) if takes_d16(d) else (False,)
    return frozenset(image_data_dwords(d, dmask, d16, tfe) for dmask in range(1, 16) for d16 in d16s
                     for tfe in (0, 1) if not (gather and d16 and tfe))


def _no_return(d, mn: str, dmask: int, data) -> OperandError | None:
    """`off` as the data of a sample returning nothing (LLVM 22's image_sample* forms without a
    result: VDATA 0, a dmask of 0x1, 0x3 or 0xf as an atomic's); not a gather (the Gather address
    group: isa.memory_access.image_address(d).gather), get_lod (a sampler instruction whose data are
    no texels: isa.memory_access.takes_d16) or a sampler-less instruction. Another dmask is
    returned (LLVM checks it with an atomic's, once the operands match)."""
    if not takes_sampler(d) or image_address(d).gather or not takes_d16(d):
        raise OperandError(f"{mn}: vdata: off (no result) is written on image_sample* only", data)
    if dmask not in _ATOMIC_DMASKS:
        return OperandError(f"{mn}: dmask:0x{dmask:x}: a sample without a result takes dmask 0x1, 0x3 or 0xf "
                            f"(LLVM: invalid atomic image dmask)", modifier="dmask")
    return None


def image(enc, d, F, ops, mods):
    """vdata (`off` for a sample returning nothing), the address (a VGPR tuple, or a list of one
    VGPR per address field whose last one may be a range), the resource (and the sampler) SGPRs,
    then dmask, dim and the flags. Refusals come in LLVM 22's order: what no form of the
    instruction takes, at the operand or modifier; then its checks of the whole instruction
    (its validateInstruction's order: an MSAA dim, the data size, the address size, an atomic's
    or a gather's dmask), the sizes at the mnemonic as LLVM reports them."""
    mn = _name(d)
    fields = enc._layout[d.format][0]
    ray, sampler = ray_query(d), takes_sampler(d)
    names = ["vdata", "vaddr", "rsrc"] + (["samp"] if sampler else [])
    if len(ops) != len(names):
        enc._arity(d, ops, names)
    slots = address_fields(fields)
    nsa_bit = "NSA" in fields
    addrs = ops[1] if isinstance(ops[1], list) else [ops[1]]
    nsa = len(addrs) > 1 or not nsa_bit        # RDNA4: an address field per VGPR (or range)
    if not addrs or len(addrs) > len(slots):
        raise OperandError(f"{mn}: vaddr: {len(addrs)} address operands, its {d.format} encoding holds 1 to "
                           f"{len(slots)}", ops[1])
    for a in addrs[:-1] if not ray else ():       # (a ray's groups: _address_widths)
        if isinstance(a, Reg) and a.count != 1:
            raise OperandError(f"{mn}: vaddr: {a}: only the last address of a list may be a range", a)
    if not nsa_bit and not isinstance(ops[1], list) and getattr(ops[1], "count", 1) > 1:
        raise OperandError(f"{mn}: vaddr: {ops[1]}: the address is written as a list on {enc.spec.arch} "
                           f"([v1, v2, ..], a VGPR or range per address field; LLVM: operands are not valid for "
                           f"this GPU or mode)", at_mnemonic=True)
    late = {}   # LLVM's checks of the whole instruction, raised in its order once the operands match
    if ray:     # fixed fields: its results (four; RDNA4's dual and BVH8: ten), a 128-bit resource (R128), UNRM
        F.update({k: v for k, v in (("DMASK", 0xf), ("R128", 1), ("UNRM", 1)) if k in fields})
        _flags(d, F, fields, mods, ("a16",) if len(image_address(d).ray) > 1 else ())   # a layout for A16
        a16 = bool(F.get("A16"))
        if not nsa_bit and len(addrs) == 1:
            raise OperandError(f"{mn}: vaddr: a ray query's address is written as a list on {enc.spec.arch} "
                               f"([origin, ..])", ops[1])
        words, n_data, rsrc_n = 0, dict((f, n) for f, n, _ in memory_effects(d).writes)["VDATA"], 4
        shape = "a16" if a16 else "its operands"
    else:
        dmask = mods.pop("dmask", 0)
        if type(dmask) is not int or not 0 <= dmask <= 0xf:
            raise OperandError(f"{mn}: dmask:{dmask} is out of range 0..0xf", modifier="dmask")
        F["DMASK"] = dmask
        atomic = memory_access(d, True).direction == "atomic"
        if atomic and dmask not in _ATOMIC_DMASKS:
            late["dmask"] = OperandError(f"{mn}: dmask:0x{dmask:x}: an atomic's dmask is 0x1, 0x3 or 0xf "
                                         f"(LLVM: invalid atomic image dmask)", modifier="dmask")
        if gathers_four(d) and bin(dmask).count("1") != 1:
            late["dmask"] = OperandError(f"{mn}: dmask:0x{dmask:x}: it returns four texels of one channel, dmask "
                                         f"must have exactly one bit set (LLVM: invalid image_gather dmask)",
                                         modifier="dmask")
        dim = F["DIM"] = _dim_code(mn, mods)
        if image_address(d).msaa == "only" and dim not in _MSAA_DIMS:    # MSAA_LOAD's rows: MSAA types alone
            late["msaa"] = OperandError(f"{mn}: dim: it reads the samples of an MSAA image, dim must be an MSAA "
                                        f"type (LLVM: invalid dim; must be MSAA type)", modifier="dim")
        _flags(d, F, fields, mods, ("unorm", "glc", "slc", "dlc", "r128", "a16", "tfe", "lwe", "d16"))
        if "TH" in fields:
            cache_policy(d, F, mods)
        d16, tfe, a16 = bool(F.get("D16")), F.get("TFE", 0), bool(F.get("A16"))
        n_data = image_data_dwords(d, dmask, d16, tfe)
        words = image_address_words(d, *image_dims(d)[dim], a16)
        rsrc_n = 8
        shape = f"dim:SQ_RSRC_IMG_{syntax.MIMG_DIM_NAMES[dim]}{' a16' if a16 else ''}"
        data = ops[0]
        parts = f"dmask:0x{dmask:x}" + (" d16" if d16 else "") + (" tfe" if tfe else "")
        if isinstance(data, Special) and data.name == "off":
            wrong = _no_return(d, mn, dmask, data)
            if wrong:
                late["dmask"] = wrong
            n_data = 0
        elif isinstance(data, Reg) and data.cls == "v" and data.count not in data_forms(d):
            forms = sorted(data_forms(d))
            raise OperandError(f"{mn}: vdata: {data} is {data.count} VGPR(s); LLVM has no form of {mn} with "
                               + (f"them: an atomic sends {forms[0]} or {2 * forms[0]} (a 64-bit value), plus the "
                                  f"TFE dword" if atomic else
                                  f"them ({', '.join(map(str, forms))}; {parts} ask for {n_data})"), data)
        elif isinstance(data, Reg) and data.cls == "v" and data.count != n_data:
            late["data"] = OperandError(f"{mn}: vdata: {data} is {data.count} VGPR(s); {parts} ask for {n_data} "
                                        f"(LLVM: image data size does not match dmask"
                                        f"{', d16' if takes_d16(d) else ''} and tfe)", at_mnemonic=True)
            n_data = data.count
    wrong = _address_widths(d, shape, mn, addrs, nsa, len(slots), words, ray, bool(F.get("A16")))
    if wrong:
        late["addr"] = wrong
    regs = [enc.vgpr(a, F, f"vaddr{i}" if nsa else "vaddr", getattr(a, "count", 1)) for i, a in enumerate(addrs)]
    if nsa_bit:
        if nsa:
            F["NSA"] = 1
            F.update(dict.fromkeys(slots[1:], 0))      # the NSA dword, unused fields 0
    else:
        F.update(dict.fromkeys(slots, 0))
    F.update(zip(slots, regs))
    F["VDATA"] = enc.vgpr(ops[0], F, "vdata", n_data) if n_data else 0
    _scalar(enc, ops[2], F, "rsrc", rsrc_n, fields, "SRSRC" if "SRSRC" in fields else "RSRC")
    if sampler:
        _scalar(enc, ops[3], F, "samp", 4, fields, "SSAMP" if "SSAMP" in fields else "SAMP")
    for check in ("msaa", "data", "addr", "dmask"):
        if check in late:
            raise late[check]


HANDLERS = {"MIMG": image, "VIMAGE": image, "VSAMPLE": image}
