"""Special scalar registers written by name (vcc, exec_hi, m0, flat_scratch, ...): how many
registers each names, from the family's traits (`isa.Traits.special_registers`), and the checks
both encoders (encode.py for RDNA, asm_gfx9.py for CDNA) make with it, so that the two agree on
every family: a name as wide as its operand, no M0 or EXEC as scalar memory data, no register
whose code disables a GLOBAL/SCRATCH SADDR written as that address."""
from __future__ import annotations

from functools import lru_cache

from . import syntax


@lru_cache(maxsize=None)
def special_widths(traits) -> dict[str, int]:
    """LLVM's spelling of each named scalar register -> the registers it names (vcc 2, vcc_lo 1,
    m0 1); null is absent (it has no width)."""
    out = {}
    for name, registers in traits.special_registers.items():
        if registers == 1:
            out[syntax.SPECIAL_TEXT.get(name, name.lower())] = 1
        else:       # a pair: LLVM names it by its low half's spelling without the suffix
            low = syntax.SPECIAL_TEXT.get(name + "_LO", name.lower() + "_lo")
            out[syntax.PAIR_TEXT.get(low, name.lower())] = 2
    return out


def _registers(n: int) -> str:
    return f"{n} register{'s' if n != 1 else ''}"


def width_error(traits, name: str, registers: int) -> str | None:
    """Why the special register `name` cannot be an operand of `registers` scalar registers, or
    None where it can (it is that wide; null, which any width reads as zero; a name that is no
    named scalar register, which the encoders' other checks answer)."""
    have = special_widths(traits).get(name)
    if have is None or have == registers:
        return None
    hint = f", use {name}_lo or {name}_hi" if have == 2 and registers == 1 else ""
    return (f"{name} is {32 * have} bits wide ({_registers(have)}); this operand is {32 * registers}-bit "
            f"({_registers(registers)}){hint}")


def smem_data_error(traits, name: str, code: int) -> str | None:
    """Why the special register `name` (operand code `code`) cannot be a scalar memory
    instruction's data, or None where it can (the manuals: SDATA is an SGPR or VCC, not M0 or EXEC)."""
    if code not in traits.smem_data_excluded:
        return None
    return f"{name} cannot hold scalar memory data (the manual: SDATA must be an SGPR or VCC, not M0 or EXEC)"


def saddr_error(traits, name: str, code: int, registers: int, vaddr: bool) -> str | None:
    """Why the special register `name` (operand code `code`) cannot be a GLOBAL/SCRATCH SADDR of
    `registers` registers, beside a VADDR operand or not (`vaddr`), or None where it can. A code
    the manual says disables SADDR (traits.saddr_off: NULL, and 0x7f, exec_hi's code, before
    RDNA4) reads no register: refused, except null where it means what `off` means (SCRATCH's
    32-bit offset; the base of an instruction without VADDR, global_load_addtid_b32). Beside a
    VADDR, null as a 64-bit GLOBAL base makes VADDR a 64-bit address, which the text says with
    `off`. EXEC as a 64-bit GLOBAL base beside a VADDR offset is refused (exec_base_error)."""
    if registers > 1 and vaddr and code == traits.exec_lo:
        return exec_base_error(name)
    if code not in traits.saddr_off or code == traits.null and not (registers > 1 and vaddr):
        return None
    return (f"{name} (code {code}) is a code that disables the scalar address"
            f"{' (VADDR is then a 64-bit address)' if registers > 1 and vaddr else ''}: write off")


def exec_base_error(name: str) -> str:
    """EXEC as the 64-bit SGPR base of a GLOBAL address with a VGPR offset: the manuals' SADDR is
    "an SGPR" providing the base (RDNA4 ISA p. 145, CDNA3 p. 87; EXEC's code is no SGPR's);
    LLVM 22 refuses it on gfx1100, gfx1201 and gfx942 ("invalid operand for instruction": its
    operand class is SReg_64_XEXEC_XNULL, and its disassembler marks the bytes "Invalid register").
    It takes exec where no VADDR is beside it (global_load_addtid_b32's base) and exec_lo as
    SCRATCH's 32-bit offset: those stay."""
    return (f"{name} cannot be the 64-bit base of a GLOBAL address with a VGPR offset (the manuals' "
            f"SADDR is an SGPR; LLVM refuses it): use an SGPR pair")
