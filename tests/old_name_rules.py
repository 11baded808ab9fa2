"""Name rules the product code no longer has, kept as they were so that the tests comparing them
with the facts that replaced them (tests/test_isa_facts_replace_*.py) still run them."""
import re

_SIZE_RE = re.compile(r"_(?:B|U|I|F)(8|16|32|64|96|128|256|512)(?:_|$)")
_FORMAT_RE = re.compile(r"FORMAT_(?:D16_)?(X|XY|XYZ|XYZW)$")
_DWORDX_RE = re.compile(r"DWORDX(\d+)")


def data_dwords(name: str) -> int:
    """dsl.operand_records.data_dwords as it was: registers of a memory instruction's data from
    the name's type suffix (the manual's suffix table; CDNA's DWORDXn, _X2)."""
    if name.endswith("_LOAD_BLOCK") or name.endswith("_STORE_BLOCK"):
        return 32
    fm = _FORMAT_RE.search(name)
    if fm:
        n = len(fm.group(1))
        return (n + 1) // 2 if "_D16" in name else n
    sizes = [int(x) for x in _SIZE_RE.findall(name)]
    if not sizes:
        dw = _DWORDX_RE.search(name)
        if dw:
            return int(dw.group(1))
        return 2 if name.endswith("_X2") else 1
    return max(1, max(sizes) // 32)
