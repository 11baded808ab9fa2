"""isa.memory_access: a memory instruction's direction and D16 data, from the manuals'
pseudocode; expected values are the manual's descriptions of each instruction."""
import pytest

import isa
from isa.memory_access import memory_access

CASES = [  # (family, name, direction, d16)
    ("rdna3", "GLOBAL_LOAD_B32", "load", False),
    ("rdna3", "GLOBAL_LOAD_D16_HI_B16", "load", True),     # "VDATA[15:0] is preserved"
    ("rdna3", "BUFFER_LOAD_D16_FORMAT_XYZ", "load", True),
    ("rdna3", "BUFFER_STORE_B32", "store", False),
    ("rdna3", "BUFFER_ATOMIC_ADD_U32", "atomic", False),
    ("rdna3", "DS_ADD_RTN_U32", "atomic", False),
    ("rdna3", "DS_STORE_B32", "store", False),
    ("rdna3", "IMAGE_SAMPLE", "load", False),               # no pseudocode: returns data
    ("rdna3", "IMAGE_STORE", "store", False),
    ("cdna3", "BUFFER_LOAD_SHORT_D16_HI", "load", True),
    ("cdna3", "DS_READ_B64", "load", False),
    ("rdna4", "GLOBAL_ATOMIC_CMPSWAP_B32", "atomic", False),
]


@pytest.mark.parametrize("family,name,direction,d16", CASES)
def test_memory_access_follows_the_manual(family, name, direction, d16):
    spec = isa.load(family)
    d = next(d for d in spec.instructions if d.name == name)
    a = memory_access(d, d.format in spec.traits.roles.image)
    assert (a.direction, a.d16) == (direction, d16)


@pytest.mark.parametrize("family", ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"])
def test_memory_access_agrees_with_the_old_name_rule(family):
    """The register allocator used name substrings (_LOAD/_STORE/_ATOMIC/_D16) before: the
    pseudocode must give the same answer wherever that rule was consulted (the data register
    of loads and atomics; a store's has no result role)."""
    spec = isa.load(family)
    roles = spec.traits.roles
    checked = 0
    for d in spec.instructions:
        if not (d.format in roles.memory or d.format in roles.lds_param):
            continue
        image = d.format in roles.image
        a = memory_access(d, image)
        checked += 1
        if a.direction != "store":
            assert a.d16 == ("_D16" in d.name), d.name
        if d.format in roles.buffer or image:
            loads = "_LOAD" in d.name or image and not ("_STORE" in d.name or "_ATOMIC" in d.name)
            assert (a.direction == "load") == loads, d.name
            if not loads:
                assert (a.direction == "atomic") == ("_ATOMIC" in d.name), d.name
    assert checked > 300


@pytest.mark.parametrize("family,name,two", [
    ("rdna3", "DS_LOAD_2ADDR_B32", True), ("rdna3", "DS_STOREXCHG_2ADDR_STRIDE64_RTN_B64", True),
    ("cdna3", "DS_READ2ST64_B64", True), ("cdna3", "DS_WRXCHG2_RTN_B32", True),
    ("rdna3", "DS_LOAD_ADDTID_B32", False),      # { OFFSET1, OFFSET0 }: one 16-bit offset
    ("rdna3", "DS_STORE_B32", False), ("rdna4", "DS_STORE_2ADDR_B64", True),
])
def test_two_address_forms_follow_the_manual(family, name, two):
    d = next(d for d in isa.load(family).instructions if d.name == name)
    assert memory_access(d).two_addresses is two


@pytest.mark.parametrize("family", ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"])
def test_two_addresses_agree_with_the_old_name_rule(family):
    import re
    old = re.compile(r"^DS_(READ|WRITE|WRXCHG)2|2ADDR")     # dsl/signature.py's rule before
    spec = isa.load(family)
    lds = [d for d in spec.instructions if d.format in spec.traits.roles.lds]
    assert len(lds) > 100
    assert [d.name for d in lds if memory_access(d).two_addresses != bool(old.search(d.name))] == []
