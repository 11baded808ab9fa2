"""wavesmith ISA definitions, generated from AMD's ISA reference PDFs.

    import isa
    spec = isa.load("gfx1100")            # or "rdna3", "rdna3.5", "gfx1151", ...
    spec.formats["VOP2"].fields           # [(name, hi, lo), ...]
    spec.lookup("v_add_f32_e64")          # [InstrDef(name='V_ADD_F32', format='VOP3', opcode=259, ...)]
"""
from .traits import FormatRoles, Traits, TraitsError
from .spec import Format, InstrDef, ISALoadError, Spec, llvm_base_mnemonic, load, load_supported, traits
from .targets import FAMILY_TARGETS, WAVE_SIZE, resolve_arch

__all__ = ["load", "load_supported", "Spec", "Format", "InstrDef", "ISALoadError", "resolve_arch", "llvm_base_mnemonic",
           "FAMILY_TARGETS", "WAVE_SIZE", "traits", "Traits", "TraitsError", "FormatRoles"]
