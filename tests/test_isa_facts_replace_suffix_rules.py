"""Facts that dsl/ read from instruction-name suffixes or a name-keyed table, now read from the
manual's code, descriptions and tables through isa/ (issue 17: no name-substring table outside
the generator).

Each test runs the old rule (kept as it was in tests/old_name_rules.py or here) and the new fact
over every instruction of RDNA3, RDNA3.5, RDNA4, CDNA3 and CDNA4, and asserts every difference
with its reason, checked in the manual's own text."""
import isa
from isa.errata import UNDESCRIBED_LDS
from isa.memory_access import lds_operands, memory_access, scalar_data, value_dwords
from tests.old_name_rules import data_dwords as old_data_dwords

FAMILIES = ["rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"]


def _memory_instructions():
    for family in FAMILIES:
        roles = isa.traits(family).roles
        for d in isa.load(family).instructions:
            if d.format in roles.smem | roles.lds | roles.flat | roles.buffer:
                yield family, d


def test_data_value_width_is_the_code_not_the_name_suffix():
    """dsl.operand_records.data_dwords read a memory instruction's data width from its name (the
    manual's type suffixes _B32.._B512, _U8, CDNA's DWORDXn and _X2, FORMAT_XYZ, D16 halving,
    RDNA4's _BLOCK); now isa.memory_access.value_dwords reads it from the code (the data registers
    it names, its memory type, its declarations) or, without code, the description's sizes. Over
    the ~2000 SMEM, DS, FLAT-family and buffer instructions of the five families they agree, bar:
    - instructions whose DS operands isa.errata.UNDESCRIBED_LDS gives with every width (the value
      width is never read for them): the GS_REG atomics ("The return value may be 32 bits or 64
      bits"), ds_bvh_stack ("3 DWORDs ... pushed"), CDNA3's GWS forms ("hardware treats this
      instruction as a 64 bit read");
    - CDNA's s_memtime / s_memrealtime: "Return current 64-bit timestamp" ("... 64-bit RTC"), 2
      registers (the names have no suffix; LLVM writes s_memtime s[0:1]);
    - CDNA's s_dcache_discard_x2, which moves no data (scalar_data 'none': "Discard two
      consecutive dirty ... cache lines"; _X2 counts cache lines)."""
    differ, checked, counts = {}, 0, {}
    for family, d in _memory_instructions():
        checked += 1
        new, old = value_dwords(d), old_data_dwords(d.name)
        counts[new] = counts.get(new, 0) + 1
        if new != old:
            differ[(family, d.name)] = (old, new)
    print("memory instructions:", checked, "value widths:", dict(sorted(counts.items())), "differ:", len(differ))
    assert checked > 1900
    undescribed = {k: v for k, v in differ.items() if k[1] in UNDESCRIBED_LDS}
    assert undescribed == {(f, n): (1, w) for f in ("rdna3", "rdna3.5") for n, w in
                           (("DS_ADD_GS_REG_RTN", 2), ("DS_SUB_GS_REG_RTN", 2), ("DS_BVH_STACK_RTN_B32", 3))} | \
        {("cdna3", n): (1, 2) for n in ("DS_GWS_INIT", "DS_GWS_SEMA_BR", "DS_GWS_BARRIER")}
    for family, name in undescribed:
        d = isa.load(family).lookup(name)[0]
        ops = lds_operands(d)        # every width given: nothing reads the value width
        assert ops.result is not None and all(regs is not None for _, regs in ops.data), (family, name)
    timestamps = {(f, n): (1, 2) for f in ("cdna3", "cdna4") for n in ("S_MEMTIME", "S_MEMREALTIME")}
    no_data = {(f, "S_DCACHE_DISCARD_X2"): (2, 1) for f in ("cdna3", "cdna4")}
    assert {k: v for k, v in differ.items() if k not in undescribed} == timestamps | no_data
    for family, name in timestamps:
        assert isa.load(family).lookup(name)[0].description.startswith("Return current 64-bit ")
    for family, name in no_data:
        assert scalar_data(isa.load(family).lookup(name)[0]) == "none"


def test_data_value_width_sources():
    """Where each width comes from: nearly all from the data registers the code names; the rest
    from the code's memory type (RDNA3's `RETURN_DATA = MEM[ADDR].b64`), its declarations
    (`declare RETURN_DATA : 32'U[2]`) or the description (RDNA4's global_load_tr_b128 "into a
    128-bit vector register", CDNA4's global_load_lds_dwordx4 "load 4 dwords", ds_read_b96_tr_b6
    "Read 96 bits")."""
    samples = {("rdna3", "DS_LOAD_B64"): 2, ("rdna3", "DS_CONDXCHG32_RTN_B64"): 2, ("rdna4", "GLOBAL_LOAD_TR_B128"): 4,
               ("rdna4", "GLOBAL_LOAD_TR_B64"): 2, ("cdna4", "GLOBAL_LOAD_LDS_DWORDX4"): 4,
               ("cdna4", "DS_READ_B96_TR_B6"): 3, ("rdna4", "GLOBAL_LOAD_BLOCK"): 32, ("rdna3", "S_LOAD_B512"): 16,
               ("rdna3", "BUFFER_LOAD_D16_FORMAT_XYZ"): 2, ("cdna3", "GLOBAL_ATOMIC_CMPSWAP_X2"): 2,
               ("rdna3", "DS_LOAD_2ADDR_B64"): 2, ("cdna3", "FLAT_ATOMIC_ADD_F64"): 2, ("rdna3", "DS_NOP"): 1}
    for (family, name), want in samples.items():
        d = isa.load(family).lookup(name)[0]
        assert value_dwords(d) == want, (family, name)
    # the compare-and-swap sends two values; its data operand is twice the value width
    d = isa.load("cdna3").lookup("GLOBAL_ATOMIC_CMPSWAP_X2")[0]
    assert memory_access(d).data_dwords == 2 * value_dwords(d)


# ---------------------------------------------------------------- image address suffixes

def _old_image_address_words(d, coords: int, gradients: int, a16: bool) -> int:    # dsl.signature, as it was
    from isa.gen.memory_access import mip_level, resource_info      # the descriptions' readings, as it was
    parts = d.name.split("_")[1:]
    extra = sum(p in ("C", "B", "O") for p in parts)
    comps = 0 if resource_info(d) else coords
    comps += any(p in ("L", "CL") for p in parts) or mip_level(d)
    words = extra + (-(-comps // 2) if a16 else comps)
    if "D" in parts:
        words += -(-(gradients // 2) // 2) * 2 if "G16" in parts else gradients
    return words


def test_image_address_suffixes_are_the_manuals_key():
    """dsl.signature.image_address_words kept the manual's "Sample Instruction Suffix Key" as its own
    name table (C, B, O a dword; L, CL a component; D derivatives, packed with G16); now the
    generator reads the key and the address tables from the manual (tables["sample_suffixes"],
    ["image_addresses"]) and records each opcode's components (isa.memory_access.image_address). The same address count for every image
    instruction, dim and A16 of RDNA3, RDNA3.5 and RDNA4 (CDNA has no image formats)."""
    from dsl.signature import image_address_words, image_dims
    checked, suffixed = 0, 0
    for family in ("rdna3", "rdna3.5", "rdna4"):
        spec = isa.load(family)
        key = tuple(spec.tables.get("sample_suffixes", ()))
        assert key, family
        for d in spec.instructions:
            if d.format not in spec.traits.roles.image:
                continue
            checked += 1
            suffixed += any(("_" + p) in {row[0] for row in key} for p in d.name.split("_")[1:])
            for coords, gradients in image_dims(d):
                for a16 in (False, True):
                    assert image_address_words(d, coords, gradients, a16) == \
                        _old_image_address_words(d, coords, gradients, a16), (family, d.name, coords, a16)
    assert checked > 200 and suffixed > 100
    for family in ("cdna3", "cdna4"):
        assert "sample_suffixes" not in isa.load(family).tables


def test_suffix_key_is_read_from_the_manual_pages():
    """The generated key is the manual's table: its eight suffixes with their meanings and extra
    addresses as printed (RDNA3 Table 49 page 110, RDNA3.5 page 112, RDNA4 Table 59 pages 131-133),
    lod and clamp as body components (the sampler address table's Sample "_L" / "_CL" rows)."""
    from isa.memory_access import image_address
    want = {"_L": ("LOD", "", True), "_B": ("LOD BIAS", "1: lod bias", False), "_CL": ("LOD CLAMP", "", True),
            "_D": ("Derivative", "2,4 or 6: slopes", False), "_LZ": ("Level 0", "", False),
            "_C": ("PCF", "1: z-comp", False), "_O": ("Offset", "1: offsets", False),
            "_G16": ("Gradient 16b", "", False)}
    # (RDNA4 from its Markdown conversion, which keeps pages only at marks: Table 59 lies between
    # section 10.3's, page 131, and 10.4's, page 133)
    for family, pages in (("rdna3", (110, 110)), ("rdna3.5", (112, 112)), ("rdna4", (131, 133))):
        key = isa.load(family).tables["sample_suffixes"]
        assert {row[0]: (row[1], row[2], row[4]) for row in key} == want, family
        assert all(pages[0] <= row[5] <= pages[1] for row in key), family
        g16 = next(row for row in key if row[0] == "_G16")
        assert "packed 2 gradients per VGPR" in g16[3]
        spec = isa.load(family)
        parts = image_address(spec.lookup("IMAGE_SAMPLE_C_D_O_G16")[0])
        assert parts.derivatives == 2 and parts.adds == () and parts.extra == ("z-comp", "offsets")
        parts = image_address(spec.lookup("IMAGE_SAMPLE_C_L_O")[0])
        assert not parts.derivatives and parts.adds == ("lod",) and parts.extra == ("z-comp", "offsets")


def test_image_addresses_are_llvm_mcs():
    """The address widths the key gives are the ones llvm-mc-22 takes: for samples with each suffix,
    our disassembler prints llvm-mc-22's bytes for gfx1100 (MIMG: our RDNA3 assembler does not take
    images) as the line llvm-mc-22 read, and our assembler gives its bytes for gfx1201 (VSAMPLE)."""
    from dsl.asm import assemble
    from dsl.disasm import disassemble
    from tests.llvm_tools import mc_encodings
    rdna3 = ["image_sample_c_d_o v[0:3], v[0:7], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
             "image_sample_b_cl v[0:3], v[0:3], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
             "image_sample_l v[0:3], v[0:3], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D",
             "image_sample_d_g16 v[0:3], v[0:3], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
             "image_gather4_c_lz_o v[0:3], v[0:3], s[0:7], s[8:11] dmask:0x1 dim:SQ_RSRC_IMG_2D"]
    for line, want in zip(rdna3, mc_encodings(rdna3, "gfx1100")):
        assert want is not None, line
        assert disassemble(want, "gfx1100").strip() == line
    rdna4 = ["image_sample_c_d_g16 v[0:3], [v0, v1, v2, v[3:7]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_3D",
             "image_sample_c_d_g16 v[0:3], [v0, v1, v2, v[3:4]], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
             "image_sample_c_lz_o v[0:3], [v0, v1, v2, v3], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
             "image_sample_b_cl v[0:3], [v0, v1, v2, v3], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D",
             "image_sample_d_g16 v[0:3], [v0, v1, v2, v3], s[0:7], s[8:11] dmask:0xf dim:SQ_RSRC_IMG_2D"]
    for line, want in zip(rdna4, mc_encodings(rdna4, "gfx1201")):
        assert want is not None, line
        assert assemble(line, "gfx1201") == want, line


# ---------------------------------------------------------------- the decoder's literal rule

def _old_always_literal(spec, fmt, defs):      # dsl.decode._always_literal, as it was
    from dsl.operand_records import vopd_base
    from dsl.signature import valu_signature
    d = defs[0]
    if fmt == "SOP2" and "SIMM32" in (d.pcode or ""):
        return True
    if fmt == "SOPK" and d.name == "S_SETREG_IMM32_B32":
        return True
    bases = (vopd_base(spec, x) for x in defs if x.format in ("VOP2", "VOPD"))
    with_constant = [b for b in bases if "SIMM" in (b.pcode or "")]
    return any(valu_signature(b).k_pos is not None for b in with_constant)


def test_literal_dword_instructions_are_generated():
    """The decoder's always-a-literal rule was a name (S_SETREG_IMM32_B32) and a "SIMM" substring
    prefilter over the pseudocode before the VALU signature's K position; now the generator records
    the instructions whose code reads SIMM32 or a K constant their format has no field for
    (tables["literal_dword"], from isa.effects' literal and constant_at) and the decoder reads that
    list. The same instructions in every family; the VOPD halves as the VOP2 instruction they
    perform."""
    from dsl.decode import _always_literal
    from dsl.operand_records import vopd_base
    from isa.effects import effects
    seen = {}
    for family in ("rdna3", "rdna3.5", "rdna4", "cdna3", "cdna4"):
        spec = isa.load(family)
        listed = set(spec.tables["literal_dword"])
        for d in spec.instructions:
            old = _old_always_literal(spec, d.format, (d,))
            assert _always_literal(spec, d.format, (d,)) == old == ((d.format, d.name) in listed), (family, d.name)
            fx = effects(vopd_base(spec, d).pcode)
            if old:
                assert fx.literal or fx.constant_at is not None, (family, d.name)
                seen[family] = seen.get(family, 0) + 1
        assert all(spec.lookup(name) for _, name in listed)
    assert seen == {"rdna3": 9, "rdna3.5": 11, "rdna4": 11, "cdna3": 5, "cdna4": 5}


def test_decoding_a_literal_reads_no_pseudocode():
    """Decoding v_fmaak_f32 / s_fmaak_f32 (a literal dword whatever the operands) takes llvm-mc-22's
    literal and size, in a process that never imports the pseudocode readers."""
    import subprocess
    import sys
    from tests.llvm_tools import mc_encodings
    cases = {"gfx1100": "v_fmaak_f32 v1, v2, v3, 0x40490fdb", "gfx1151": "s_fmaak_f32 s1, s2, s3, 0x40490fdb",
             "gfx942": "v_madak_f16 v1, v2, v3, 0x4248"}
    for arch, line in cases.items():
        (code,) = mc_encodings([line], arch)
        assert code is not None and len(code) == 8, (arch, line)
        program = ("import sys, isa\nfrom dsl.decode import decode_one\nfrom dsl.families import load_for_disassembly\n"
                   f"inst = decode_one(load_for_disassembly({arch!r}), bytes.fromhex({code.hex()!r}))\n"
                   "print(inst.name, inst.size, hex(inst.literal), 'isa.effects' in sys.modules, 'dsl.signature' in sys.modules)")
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
        name, size, literal, effects_loaded, signature_loaded = done.stdout.split()
        assert (name.lower(), int(size), int(literal, 16)) == (line.split()[0], 8, int(line.split()[-1], 16))
        assert effects_loaded == signature_loaded == "False", done.stdout


# ---------------------------------------------------------------- LDS alias spellings

_OLD_DS_VERBS = {"read": "load", "write": "store", "read2": "load_2addr", "write2": "store_2addr",
                 "read2st64": "load_2addr_stride64", "write2st64": "store_2addr_stride64",
                 "wrxchg": "storexchg", "wrxchg2": "storexchg_2addr", "wrxchg2st64": "storexchg_2addr_stride64"}


def _old_lds_spellings(spec) -> dict:          # dsl.encode.old_spellings' LDS part, as it was
    table = {}
    verbs = sorted(_OLD_DS_VERBS.items(), key=lambda kv: -len(kv[1]))
    for name in sorted({d.name.lower() for d in spec.instructions if d.name.startswith("DS_")}):
        for old, new in verbs:
            if name.startswith(f"ds_{new}_"):
                table[f"ds_{old}_{name[len(new) + 4:]}"] = name
                break
    return table


def test_lds_aliases_are_a_table_not_a_verb_rule():
    """dsl.encode.old_spellings made LLVM's pre-gfx11 LDS spellings by swapping the verb of every
    ds_ instruction name (ds_load_2addr_b32 <- ds_read2_b32); now they are isa.mnemonics.LDS_ALIASES,
    the 38 spellings LLVM takes. The same spellings on RDNA3, RDNA3.5 and RDNA4 (the only families
    with the renamed instructions: CDNA's instructions are the old names)."""
    from dsl import syntax
    from dsl.encode import old_spellings
    from isa.mnemonics import LDS_ALIASES
    for arch in ("gfx1100", "gfx1151", "gfx1201"):
        spec = isa.load(arch)
        table = old_spellings(spec)
        lds = {old: new for old, new in table.items() if old not in syntax.OLD_NAMES}
        assert lds == _old_lds_spellings(spec) == LDS_ALIASES, arch
    for family in ("cdna3", "cdna4"):
        spec = isa.load(family)
        assert not any(spec.lookup(new) for new in LDS_ALIASES.values())
        assert all(spec.lookup(old) for old in ("ds_read_b32", "ds_write2_b64", "ds_wrxchg_rtn_b32"))


def test_lds_aliases_are_what_llvm_mc_takes():
    """Each alias, with the operands of its new instruction, encodes with llvm-mc-22 for gfx1100,
    gfx1151 and gfx1201 to the bytes of the new spelling, and our assembler gives the same bytes."""
    from dsl.asm import assemble
    from isa.mnemonics import LDS_ALIASES
    from tests.llvm_tools import mc_encodings
    def operands_of(new: str) -> str:
        wide = new.endswith("_b64")
        if "storexchg_2addr" in new:
            return "v[0:3], v2, v[4:5], v[6:7] offset0:1 offset1:2" if wide else "v[0:1], v2, v4, v6 offset0:1 offset1:2"
        if "load_2addr" in new:
            return "v[0:3], v2 offset0:1 offset1:2" if wide else "v[0:1], v2 offset0:1 offset1:2"
        if "store_2addr" in new:
            return "v2, v[4:5], v[6:7] offset0:1 offset1:2" if wide else "v2, v4, v6 offset0:1 offset1:2"
        if "addtid" in new:
            return "v1 offset:16"
        if "storexchg" in new:
            return "v[0:1], v2, v[4:5] offset:8" if wide else "v0, v2, v4 offset:8"
        width = {"b64": "v[0:1]", "b96": "v[0:2]", "b128": "v[0:3]"}.get(new.rsplit("_", 1)[-1], "v0")
        return f"{width}, v4 offset:8" if "load" in new else f"v4, {width} offset:8"

    for arch in ("gfx1100", "gfx1151", "gfx1201"):
        pairs = sorted(LDS_ALIASES.items())
        olds = [f"{old} {operands_of(new)}" for old, new in pairs]
        news = [f"{new} {operands_of(new)}" for old, new in pairs]
        for old_line, new_line, got_old, got_new in zip(olds, news, mc_encodings(olds, arch), mc_encodings(news, arch)):
            assert got_new is not None, (arch, new_line)
            assert got_old == got_new, (arch, old_line)
            assert assemble(old_line, arch) == got_new, (arch, old_line)


def test_clock_reads_are_the_manuals_word():
    """The gfx9 assembler, printer and operand namer took s_memtime / s_memrealtime (an SDATA pair,
    no address) by name; now isa.memory_access.reads_counter: no memory access and the description
    "Return current 64-bit timestamp" (RTC), its SGPRs value_dwords' 2. The same instructions in
    every family (only CDNA has them), and llvm-mc-22's bytes print and assemble as LLVM's text."""
    from dsl.asm_gfx9 import assemble_gfx9
    from dsl.disasm import disassemble
    from isa.memory_access import reads_counter
    from tests.llvm_tools import mc_encodings
    seen = 0
    for family in FAMILIES:
        for d in isa.load(family).instructions:
            old = d.name in ("S_MEMTIME", "S_MEMREALTIME")
            assert reads_counter(d) == old, (family, d.name)
            if old:
                assert value_dwords(d) == 2
                seen += 1
    assert seen == 4
    for arch in ("gfx942", "gfx950"):
        lines = ["s_memtime s[2:3]", "s_memrealtime s[10:11]"]
        for line, want in zip(lines, mc_encodings(lines, arch)):
            assert want is not None, line
            assert disassemble(want, arch).strip() == line
            assert assemble_gfx9(line, arch) == want, line
