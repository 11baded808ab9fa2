"""Expressions of the pseudocode -> (Python source over numpy, static type): operand and
field reads, literals, casts, bit slices, operators with the C-like type rules of the
manual (unify / coerce), calls into rtlib, other instructions and lambdas."""
from __future__ import annotations

import re

from lark import Token, Tree

from .. import rtlib
from .lookup import callee_result_type
from .types import Unsupported, ADDRESS_FUNCTIONS, DS_ADDRESS_FUNCTION, INSTRUCTION_WORD, OPERANDS, LANE_ID_NAMES, LIT, BOOL, SDWA_SELECTS, Ty, Var, type_of_field, is_name, is_operand, is_pow2, is_const, is_denorm
from ..semantics import Operand


class Expressions:
    """Mixin of Translator: expression translation (methods x_<tree node>)."""

    def expr(self, node) -> tuple[str, Ty]:
        if isinstance(node, Token):
            self.fail(f"token {node}")
        meth = getattr(self, "x_" + node.data, None)
        if meth is None:
            self.fail(f"expression {node.data}", node)
        return meth(node)

    def x_number(self, node):
        text = str(node.children[0])
        return self.literal(text)

    def literal(self, text: str, bits: int | None = None, suffix: str = ""):
        m = re.fullmatch(r"(-?)(0x[0-9a-fA-F]+|\d+\.\d+|\d+)(ULL|LL|U|F)?", text)
        if not m:
            self.fail(f"number {text}")
        neg, body, suf = m.group(1), m.group(2), m.group(3) or ""
        suf = suffix or suf
        if "." in body:
            v = float(body) * (-1 if neg else 1)
            if suf in ("F",) or bits in (16, 32, 64):
                b = bits or 32
                return f"R.FLOAT[{b}]({v!r})", Ty("f", b)
            return repr(v), Ty("lit", 64)
        v = int(body, 0) * (-1 if neg else 1)
        if suf in ("ULL", "U") or suffix == "U" or suffix == "B":
            b = bits or (64 if suf == "ULL" else 32)
            return f"R.U64({v & ((1 << 64) - 1)})", Ty("u", b)
        if suf == "LL" or suffix == "I":
            v &= (1 << 64) - 1          # a 64-bit pattern such as 0xfff8000000000000LL wraps
            return f"np.int64({v - (1 << 64) if v >> 63 else v})", Ty("i", bits or 64)
        if suffix == "F":
            b = bits or 32
            return f"R.FLOAT[{b}]({float(v)!r})", Ty("f", b)
        return repr(v), Ty("lit", bits or 64)

    def x_sized_lit(self, node):
        text = str(node.children[0])
        bits, rest = text.split("'", 1)
        m = re.fullmatch(r"(-?(?:0x[0-9a-fA-F]+|\d+\.\d+|\d+))([UIFB]?)", rest)
        body, suf = m.group(1), m.group(2)
        if "." in body:
            return self.literal(body, int(bits), "F")
        return self.literal(body, int(bits), suf or "U")

    def x_name(self, node):
        name = str(node.children[0])
        if name in self.vars:
            v = self.vars[name]
            return self.pyname(name), v.ty
        if name in LANE_ID_NAMES or name == "lane":
            return "R.lane_id(ctx)", Ty("u", 32)
        if name in ("WAVE64", "wave64"):       # RDNA4's permlane*_var spell it in lower case too
            return "(ctx.lanes == 64)", BOOL
        if name in ("WAVE32", "wave32"):
            return "(ctx.lanes == 32)", BOOL
        if name == "EXEC_LO":
            c, _ = self.read_operand("EXEC")
            return f"({c} & R.U64(0xFFFFFFFF))", Ty("u", 32)
        if name == "ROUND_MODE":           # only ever saved (prev_mode = ROUND_MODE) and restored
            return "None", LIT
        if name in ("EXECZ", "VCCZ"):
            src = name[:-1]
            c, _ = self.read_operand(src)
            return f"R.U64({c} == 0)", Ty("u", 1)
        if name in SDWA_SELECTS:           # SDWA_SRC0_SEL == BYTE1.b3: a select code (machine_sdwa)
            return f"R.U64({SDWA_SELECTS[name]})", LIT
        if name in ("PI", "INF", "NAN", "OVERFLOW_F32", "OVERFLOW_F64", "UNDERFLOW_F32", "UNDERFLOW_F64", "MAX_FLOAT_F32"):
            return f"R.CONSTANTS[{name!r}]", Ty("lit", 64)
        if name in OPERANDS:
            code, ty = self.read_operand(name)
            if ty.kind == "u" and ty.bits <= 32 and name not in self.int_fields:
                code = f"R.raw({code})"     # held as the machine's uint32; as a bare value it is 64-bit
            return code, ty
        self.fail(f"unknown name {name}", node)

    def accessed(self, base):
        """The value a field access, slice or bit index applies to. An operand is passed as
        held (a uint32 stays one: the rtlib accessors widen what they must)."""
        if is_operand(base):
            return self.read_operand(str(base.children[0]))
        return self.expr(base)

    defined_operands: set

    def read_operand(self, name):
        if name == "EXEC":
            self.reads.setdefault("EXEC", Operand("EXEC", 64, "u64"))
            if "EXEC" not in self.defined_operands:
                self.defined_operands.add("EXEC")
                self.prologue.append("EXEC = np.asarray(ctx.exec_mask).astype(R.U64)")
            return "EXEC", Ty("u", 64)
        ty = self.operand_ty(name)
        if name not in self.defined_operands:
            self.defined_operands.add(name)
            self.use_operand(name)
            if name in self.int_fields:
                self.prologue.append(f"{name} = R.U64(ctx.get({name!r}, {self.name!r}))")
            else:
                self.prologue.append(f"{name} = R.operand(ctx, {name!r}, {ty.bits}, {self.name!r})")
        if name == "SCC" or name in ("VCC", "EXEC", "PC", "M0") or name in self.int_fields:
            return name, Ty("u", ty.bits if name != "SCC" else 1)
        return name, Ty("u", ty.bits) if ty.bits <= 64 else Ty("dw", ty.bits)

    def x_field(self, node):
        base, fname = node.children[0], str(node.children[1])
        if isinstance(base, Tree) and base.data == "name":
            bname = str(base.children[0])
            if bname == "WAVE_MODE":
                return f"R.mode_field(ctx, {fname!r})", Ty("u", 1)
            if bname == "WAVE_STATUS":
                return f"R.status_field(ctx, {fname!r})", Ty("u", 1)
            if bname == INSTRUCTION_WORD:
                # a field of the instruction word the pseudocode interprets itself (CDNA4's
                # V_BITOP3: TTBL = { INST.OMOD[1 : 0], INST.ABS[2 : 0], INST.NEG[2 : 0] }): an int
                # the machine supplies as INST.<field>, which then applies no modifier of its own
                name = f"{INSTRUCTION_WORD}.{fname}"
                self.reads.setdefault(name, Operand(name, 32, "u32"))
                return f"R.U64(ctx.get({name!r}, {self.name!r}))", Ty("u", 32)
            if bname in ("NAN", "DENORM", "INF") and type_of_field(fname):
                t = type_of_field(fname)
                if bname == "DENORM":
                    self.fail("DENORM outside a comparison", node)
                return f"R.FLOAT[{t.bits}](R.CONSTANTS[{bname!r}])", Ty("f", t.bits)
        ty = type_of_field(fname)
        if ty is None:
            self.fail(f"field .{fname}", node)
        if isinstance(base, Tree) and base.data == "mem":
            addr, _ = self.expr(base.children[0])
            self.mem_read = True
            nbytes = ty.bits // 8
            return f"R.access(R.mem_load(ctx, {addr}, {nbytes}, {self.pred or 'None'}), {ty.kind!r}, {ty.bits})", ty
        if ty.bits == 64 and isinstance(base, Tree) and base.data == "index" and is_name(base.children[0], {"SGPR"}):
            self.cross_lane = True          # SGPR[addr].b64: the pair addr, addr + 1 (s_movrels_b64)
            reg, _ = self.expr(base.children[1])
            return f"R.access(R.sgpr_read(ctx, {reg}, 2), {ty.kind!r}, 64)", ty
        code, bty = self.accessed(base)
        if ty.kind == "bf":
            return f"R.bf16_to_f32(R.access({code}, 'u', 16))", Ty("f", 32)
        if ty.kind in ("fp8", "bf8"):       # the family's format (rtlib.eight_bit_floats)
            return f"F8.{ty.kind}_to_f32(R.access({code}, 'u', 8))", Ty("f", 32)
        if bty.kind == "dw" and ty.kind == "u" and ty.bits == bty.bits:
            return code, bty            # tmp.b192 of a wide local: all of its dwords
        if bty.kind == "dw":
            self.fail("typed access to a wide operand without a bit range", node)
        if bty.kind == "f" and ty.kind == "f" and ty.bits == bty.bits:
            return code, ty
        if bty.kind == "f" and ty.kind == "f" and is_name(base, self.vars):
            # a float local read as a float of another width is its value converted (CDNA's
            # v_div_fixup_legacy_f16: tmp = cvtToQuietNAN(64'F(S2.f16)) ... D0 = { 16'0, tmp.f16 },
            # as V_DIV_FIXUP_F16 writes D0.f16 = 16'F(cvtToQuietNAN(64'F(S2.f16)))), not its low bits
            return f"R.F({code}, {ty.bits})", ty
        if bty.kind == ty.kind and bty.bits == ty.bits and ty.kind in "ui" and not is_operand(base):
            return code, ty
        if self.saturate and ty.kind in "ui" and bty.kind in "ui" and bty.bits > ty.bits and is_name(base, self.vars):
            return code, ty          # D0.u = tmp.u under integer clamp: the store saturates the whole value
        return f"R.access({code}, {ty.kind!r}, {ty.bits})", ty

    def x_index(self, node):
        base, idx = node.children[0], node.children[1]
        if isinstance(base, Tree) and base.data == "index" and is_name(base.children[0], {"VGPR"}):
            self.cross_lane = True
            lane, _ = self.expr(base.children[1])
            reg, _ = self.expr(idx)
            return f"R.vgpr_read(ctx, {reg}, {lane}, {self.pred or 'None'})", Ty("u", 32)
        if is_name(base, {"SGPR"}):
            self.cross_lane = True
            reg, _ = self.expr(idx)
            return f"R.sgpr_read(ctx, {reg})", Ty("u", 32)
        if is_name(base, {"HW_REGISTERS"}):
            reg, _ = self.expr(idx)
            return f"R.hwreg_read(ctx, {reg})", Ty("u", 32)
        if is_name(base, {"VGPR"}):
            self.fail("VGPR[...] with one index", node)
        if isinstance(base, Tree) and base.data == "name" and str(base.children[0]) in self.vars \
                and self.vars[str(base.children[0])].array:
            var = self.vars[str(base.children[0])]
            i, _ = self.expr(idx)
            return f"R.pick({self.pyname(str(base.children[0]))}, {i})", var.ty
        if isinstance(base, Tree) and base.data == "mem":
            self.fail("MEM[...][bit]", node)
        code, bty = self.accessed(base)
        i, _ = self.expr(idx)
        if bty.kind == "dw":
            self.fail("single bit of a wide operand", node)
        return f"R.bits_of({code}, {i}, {i})", Ty("u", 1)

    def x_slice(self, node):
        base = node.children[0]
        if isinstance(base, Tree) and base.data == "mem":
            addr, _ = self.expr(base.children[0])
            bits = self._slice_bits(node, node)
            lo = int(str(node.children[2].children[0]), 0)
            if lo != 0 or bits not in (8, 16, 32, 64):
                self.fail("MEM slice must start at bit 0 and be 8/16/32/64 bits", node)
            self.mem_read = True
            return f"R.mem_load(ctx, {addr}, {bits // 8}, {self.pred or 'None'})", Ty("u", bits)
        if isinstance(base, Tree) and base.data == "field" and is_operand(base.children[0]):
            # a slice past its type's width of an operand that wide (v_pk_mov_b32's 64-bit
            # S0.u32[OPSEL[0].i32 * 32 + 31 : OPSEL[0].i32 * 32]) slices the operand's bits
            fty = type_of_field(str(base.children[1]))
            if fty is not None and fty.kind in ("u", "i", "b") and \
                    fty.bits < self.operand_ty(str(base.children[0].children[0])).bits:
                base = base.children[0]
        code, bty = self.accessed(base)
        if bty.kind == "dw":
            try:
                lo, bits = self._const_slice(node, node)
            except Unsupported:
                # any range of up to 64 bits whose width is constant (a loop's S0[sOffset + 31 :
                # sOffset] over 32 packed values)
                bits = self.slice_width(node, node)
                if bits > 64:
                    raise
                lo, _ = self.expr(node.children[2])
                return f"R.dw_field({code}, {lo}, {bits})", Ty("u", bits)
            return f"R.dw_get({code}, {lo}, {bits})", Ty("u", bits)
        hi, _ = self.expr(node.children[1])
        lo, _ = self.expr(node.children[2])
        # a constant range has its own width ({ ~lane[5], lane[4 : 0] } is 6 bits); else up to 64
        width = int(hi, 0) - int(lo, 0) + 1 if is_const(node.children[1]) and is_const(node.children[2]) else 64
        return f"R.bits_of({code}, {hi}, {lo})", Ty("u" if bty.kind != "wide" or width <= 64 else "wide", width)

    def x_slice_up(self, node):
        """x[lo +: width] (Verilog part-select): bits lo + width - 1 down to lo."""
        base, lo, width = node.children
        hi = Tree("binop", [Tree("binop", [lo, Token("PLUS", "+"), width]), Token("MINUS", "-"),
                            Tree("number", [Token("NUMBER", "1")])])
        return self.x_slice(Tree("slice", [base, hi, lo], node.meta))

    def x_mem(self, node):
        addr, _ = self.expr(node.children[0])
        self.mem_read = True
        return f"R.mem_load(ctx, {addr}, 4, {self.pred or 'None'})", Ty("u", 32)

    def x_cast(self, node):
        text = str(node.children[0])
        bits, k = int(text.split("'")[0]), text.split("'")[1][0]
        inner = node.children[1]
        code, ty = self.expr(inner)
        if k == "F":
            if bits not in (16, 32, 64):
                self.fail(f"{bits}-bit float", node)
            if isinstance(inner, Tree) and inner.data == "number" and str(inner.children[0]).startswith("0x"):
                return f"R.access({code}, 'f', {bits})", Ty("f", bits)     # 32'F(0xffc00000): a bit pattern
            return f"R.F({code}, {bits})", Ty("f", bits)
        signed = k == "I"
        if ty.kind in ("f", "lit") and bits > 64 and _is_two_over_pi(inner):
            # 1201'B(2.0 / PI): "(2.0/PI) == 0.{b_1200, ..., b_0}", the first fraction bits of
            # 2/pi as an integer (V_TRIG_PREOP_F64), not the integer part of a float
            return f"R.two_over_pi_bits({bits})", Ty("wide", bits)
        if ty.kind in ("f", "lit") and bits > 64:
            self.fail(f"{bits}-bit integer image of a float", node)
        if ty.kind == "f" and k == "B":
            # a float's bits (23'B(mantissa(S0.f32)) of the v_cvt_sr_*8_f32: the low 23 of the
            # f32 image of its mantissa, the fraction field of every f32 but a denormal)
            return f"R.cast_int(R.raw({code}), False, {bits})", Ty("u", bits)
        if ty.kind == "f":
            return f"R.to_int({code}, {signed}, {min(bits, 64)})", Ty("i" if signed else "u", bits)
        if bits > 64:
            return f"R.wide({code})", Ty("wide", bits)
        if ty.kind == "lit":
            return f"R.cast_int({code}, {signed}, {bits})", Ty("i" if signed else "u", bits)
        return f"R.cast_int({code}, {signed}, {bits})", Ty("i" if signed else "u", bits)

    def x_concat(self, node):
        parts = []
        for c in node.children:
            code, ty = self.expr(c)
            if ty.kind == "lit":
                self.fail("unsized constant in {...}", node)
            if ty.kind == "f" and isinstance(c, Tree) and c.data == "field" and isinstance(c.children[0], Tree) \
                    and c.children[0].data == "name" and str(c.children[0].children[0]) in self.vars:
                # a float result held as bits (CDNA's legacy f16: D0 = { 16'0, tmp.f16 }): its
                # output denormals flushed as MODE.FP_DENORM says, as a D0.f16 result's are
                code = f"R.result_bits(ctx, {code}, {ty.bits})"
            parts.append(f"({code}, {ty.bits})")
        total = sum(self.expr(c)[1].bits for c in node.children)
        return f"R.concat([{', '.join(parts)}])", Ty("u" if total <= 64 else "wide", total)

    def x_ternary(self, node):
        c, _ = self.expr(node.children[0])
        a = self.expr(node.children[1])
        b = self.expr(node.children[2])
        ty = self.unify(a[1], b[1])
        return f"R.where(R.truth({c}), {self.coerce(a, ty)}, {self.coerce(b, ty)})", ty

    def x_unary(self, node):
        op = str(node.children[0])
        code, ty = self.expr(node.children[1])
        if op == "!":
            return f"(~R.truth({code}))", BOOL
        if op == "+":
            return code, ty
        if op == "-":
            if ty.kind in ("u",):
                return f"(R.U64(0) - R.raw({code}))", ty
            if ty.kind == "bool":
                return f"(-R.I({code}))", Ty("i", 64)
            return f"(-{code})", ty
        if op == "~":
            if ty.kind == "lit":
                return f"(~{code})", ty
            if ty.kind == "bool":
                return f"(~{code})", ty
            if ty.kind == "u" and ty.bits < 64:
                return f"(~R.raw({code}) & R.U64({(1 << ty.bits) - 1}))", ty
            return f"(~{code})", ty
        self.fail(f"unary {op}", node)

    def x_binop(self, node):
        a, op, b = node.children
        op = str(op)
        if op in ("==", "!=", "<>") and (is_denorm(a) or is_denorm(b)):
            x = self.expr(b if is_denorm(a) else a)[0]
            return (f"R.is_denorm({x})" if op == "==" else f"(~R.is_denorm({x}))"), BOOL
        if op == "*" and is_pow2(b):           # x * 2.0 ** n is ldexp: exact, no overflow of 2**n
            x, tx = self.expr(a)
            n, _ = self.expr(b.children[2])
            return f"R.ldexp({x}, {n})", tx
        return self.binop(op, self.expr(a), self.expr(b))

    def unify(self, ta: Ty, tb: Ty) -> Ty:
        if ta.kind == "lit":
            return tb
        if tb.kind == "lit":
            return ta
        if "wide" in (ta.kind, tb.kind):
            return Ty("wide", max(ta.bits, tb.bits))
        if ta.kind == "f" or tb.kind == "f":
            return Ty("f", max(t.bits for t in (ta, tb) if t.kind == "f"))
        if ta.kind == "bool" and tb.kind == "bool":
            return BOOL
        if ta.kind == "i" and tb.kind in ("i", "bool") or tb.kind == "i" and ta.kind == "bool":
            return Ty("i", max(ta.bits, tb.bits))
        return Ty("u", max(ta.bits, tb.bits))

    def coerce(self, e, ty: Ty) -> str:
        code, t = e
        if t == ty or ty.kind == "lit":
            return code
        if ty.kind == "wide":
            return f"R.wide({code})" if t.kind != "lit" else code
        if ty.kind == "f":
            if t.kind == "f" and t.bits == ty.bits:
                return code
            if t.kind == "lit":
                return code       # numpy keeps the array's float type for a Python scalar
            return f"R.F({code}, {ty.bits})"
        if ty.kind == "bool":
            return f"R.truth({code})" if t.kind != "lit" else f"bool({code})"
        if t.kind == "lit":
            return f"R.U64(({code}) & {(1 << 64) - 1})" if ty.kind == "u" else f"np.int64({code})"
        if t.kind == "f":
            return f"R.to_int({code}, {ty.kind == 'i'}, 64)"
        return f"R.I({code})" if ty.kind == "i" else f"R.U({code})"

    def binop(self, op, ea, eb):
        (ca, ta), (cb, tb) = ea, eb
        if op in ("&&", "||"):
            f = "&" if op == "&&" else "|"
            return f"(R.truth({ca}) {f} R.truth({cb}))", BOOL
        if op in ("<<", ">>"):
            if ta.kind == "lit":
                ta = Ty("i", 64)
                ca = f"np.int64({ca})"
            fn = "shl" if op == "<<" else "shr"
            if ta.kind == "f":
                self.fail("shift of a float")
            return f"R.{fn}({ca}, {cb})", ta
        if ta.kind == "lit" and tb.kind == "lit":
            pyop = {"<>": "!=", "/": "/" if "." in ca + cb else "//"}.get(op, op)
            cmp = op in ("==", "!=", "<>", "<", ">", "<=", ">=")
            return f"({ca} {pyop} {cb})", BOOL if cmp else LIT
        if op == "**":
            return f"R.power({ca}, {cb})", ta if ta.kind != "lit" else tb
        ty = self.unify(ta, tb)
        if ty.kind == "bool" and op not in ("==", "!=", "<>", "&", "|", "^"):
            ty = Ty("u", 1)
        xa, xb = self.coerce(ea, ty), self.coerce(eb, ty)
        if ty.kind == "bool" and op in ("&", "|", "^"):
            return f"({xa} {op} {xb})", BOOL
        if op == "<>" and ty.kind == "f":       # ordered less-or-greater: false for NaN
            return f"(({xa} < {xb}) | ({xa} > {xb}))", BOOL
        if op in ("==", "!=", "<>", "<", ">", "<=", ">="):
            pyop = "!=" if op == "<>" else op
            return f"({xa} {pyop} {xb})", BOOL
        if ty.kind == "f" and op in FLOAT_ARITHMETIC:
            # rtlib's, not numpy's operators: which of two NaN operands a result keeps must not
            # depend on the operands' shapes (rtlib.first_nan)
            return f"R.{FLOAT_ARITHMETIC[op]}({xa}, {xb})", ty
        if op == "/":
            return f"R.idiv({xa}, {xb})", ty
        if op == "%":
            return f"R.imod({xa}, {xb})", ty
        if op in ("&", "|", "^") and ty.kind == "f":
            self.fail("bitwise operation on a float")
        return f"({xa} {op} {xb})", ty

    def x_call(self, node):
        fname = str(node.children[0])
        args = [c for c in node.children[1:] if c is not None]
        if fname in self.lambdas:
            return self.call_lambda(fname, args, node)
        if fname == "abs":
            code, ty = self.expr(args[0])
            return f"R.fabs({code})", ty
        if fname in ADDRESS_FUNCTIONS:
            return self.read_operand("ADDR")
        if fname == DS_ADDRESS_FUNCTION and len(args) == 2:
            return self.read_operand(self.ds_address_operand(args, node))
        if fname == DS_ADDRESS_FUNCTION:
            if len(args) != 3 or not is_name(args[0], {"ADDR"}) and not (
                    args[0].data == "field" and is_name(args[0].children[0], {"ADDR"})):
                self.fail(f"{fname}() of anything but ADDR and two offsets", node)
            addr, _ = self.read_operand("ADDR")
            offsets = ", ".join(self.expr(a)[0] for a in args[1:])
            return f"R.ds_address({addr}, {offsets})", Ty("u", 64)
        coded = [self.expr(a) for a in args]
        if fname in _SMALL_FLOAT_READS and len(coded) == 1 and coded[0][1] == Ty("f", 32):
            return coded[0]         # bf16_to_f32(S0[15 : 0].bf16): the typed read already converted
        if re.fullmatch(r"[vs]_[a-z0-9_]+", fname) and not hasattr(rtlib, fname):
            return self.call_instruction(fname.upper(), coded, node)
        def known(f):
            return hasattr(rtlib, f) or f in rtlib.FAMILY_CALLS
        if not known(fname):
            self.fail(f"function {fname}()", node)
        if self.round_mode and known(f"{fname}_{self.round_mode}"):
            fname = f"{fname}_{self.round_mode}"
        result = RESULT_TYPES.get(fname)
        ty = result(coded) if callable(result) else result or (coded[0][1] if coded else LIT)
        ctx = ["ctx"] if fname in rtlib.CTX_CALLS else []      # functions that read MODE
        module = "F8" if fname in rtlib.FAMILY_CALLS else "R"   # the family's 8-bit floats
        return f"{module}.{fname}({', '.join(ctx + [c for c, _ in coded])})", ty

    def ds_address_operand(self, args, node) -> str:
        """RDNA4's `addr = CalcDsAddr(vgpr_a.b32, 0x0)` is the address VGPR alone (ADDR_BASE:
        the pseudocode adds OFFSET / OFFSET0 * 4U itself); `CalcDsAddr(vgpr_a.b32, offset.b32)`
        is the address with the instruction offset (ADDR). Other arguments are refused."""
        names = [_leading_name(a) for a in args]
        if names[0] != "vgpr_a" or names[1] not in ("offset", 0):
            self.fail(f"CalcDsAddr() of ({', '.join(map(str, names))}): the machine computes it from "
                      f"(vgpr_a, offset or 0x0)", node)
        return "ADDR_BASE" if names[1] == 0 else "ADDR"

    def call_instruction(self, name, coded, node):
        """v_min_f32(a, b) inside another instruction's pseudocode: that instruction's own
        semantic, called with S0, S1, ... and returning its D0 (typed as its D0 operand)."""
        if name in ("V_NOP", "S_NOP"):
            return "None", LIT
        args = ", ".join(f"R.raw({c})" for c, _ in coded)
        ty = self.instruction_types(name, node)
        # INSTRUCTIONS: the semantics of the architecture compiled for (emu/table.py compile_source)
        return f"R.access(R.call_instruction(INSTRUCTIONS, ctx, {name!r}, [{args}]), {ty.kind!r}, {ty.bits})", ty

    def instruction_types(self, name, node) -> Ty:
        if self.spec is None:
            self.fail(f"function {name.lower()}() (translating a call needs the architecture's Spec)", node)
        t = callee_result_type(self.spec, name)
        if t is None:
            self.fail(f"function {name.lower()}()", node)
        return type_of_field(t.replace("pk_", "")) or Ty("u", 32)

    def call_lambda(self, fname, args, node):
        lam = self.lambdas[fname]
        params = [str(p) for p in lam.children[0].children]
        body = lam.children[1]
        if len(args) != len(params):
            self.fail(f"{fname} takes {len(params)} arguments", node)
        saved_vars, saved_pred = dict(self.vars), self.pred
        for p, a in zip(params, args):
            code, ty = self.expr(a)
            py = self.pyname(p)
            self.emit(f"{py} = {code}")
            self.vars[p] = Var(ty)
        stmts = body.children
        if len(stmts) == 1 and stmts[0].data == "expr_stmt":
            code, ty = self.expr(stmts[0].children[0])
            res = self.fresh("r")
            self.emit(f"{res} = {code}")
        else:
            res, done = self.fresh("r"), self.fresh("done")
            self.emit(f"{res} = 0")
            self.emit(f"{done} = np.zeros(ctx.shape, bool)")
            self.returns.append((res, done))
            self.pred = None
            self.stmts(body)
            self.returns.pop()
            ty = Ty("u", 8)
        self.vars, self.pred = saved_vars, saved_pred
        return res, ty

    def x_lambda_(self, node):
        self.fail("lambda outside an assignment", node)

    def pyname(self, name: str) -> str:
        return f"v_{name}"

    def zero(self, ty: Ty) -> str:
        return f"R.FLOAT[{ty.bits}](0)" if ty.kind == "f" else ("np.int64(0)" if ty.kind == "i" else "R.U64(0)")


def _first_float(coded):
    for _, t in coded:
        if t.kind == "f":
            return t
    return Ty("f", 64)


def _conv_type(fname):
    dst = fname.split("_to_")[1]
    return Ty("f", int(dst[1:])) if dst[0] == "f" else Ty(dst[0], int(dst[1:]))


# float + - * / : rtlib functions that make one NaN choice whatever the operands' shapes
FLOAT_ARITHMETIC = {"+": "fadd", "-": "fsub", "*": "fmul", "/": "fdiv"}
BOOLS = ("isNAN", "isQuietNAN", "isSignalNAN", "isINF", "isEven")
def _leading_name(node):
    """`v_addr.b64` -> 'v_addr', `0x0` -> 0, anything else -> None."""
    while isinstance(node, Tree) and node.data in ("field", "slice") and node.children:
        node = node.children[0]
    if isinstance(node, Tree) and node.data == "name":
        return str(node.children[0])
    if isinstance(node, Tree) and node.data == "number":
        try:
            return int(str(node.children[0]), 0)
        except ValueError:
            return None
    return None


# conversions of a small float the typed access (.bf16, .fp8, .bf8) already performs
_SMALL_FLOAT_READS = ("bf16_to_f32", "fp8_to_f32", "bf8_to_f32")

RESULT_TYPES: dict = {n: BOOL for n in BOOLS}
RESULT_TYPES.update({"sign": Ty("u", 1), "exponent": Ty("i", 32), "countbits": Ty("i", 32),
                     "s_ff1_i32_b32": Ty("i", 32), "s_ff1_i32_b64": Ty("i", 32), "signext": Ty("i", 64),
                     "signextFromBit": Ty("i", 64), "bf16_to_f32": Ty("f", 32), "f32_to_bf16": Ty("u", 16),
                     "fp8_to_f32": Ty("f", 32), "bf8_to_f32": Ty("f", 32), "float32": Ty("f", 32),
                     "f32_to_fp8": Ty("u", 8), "f32_to_bf8": Ty("u", 8), "f32_to_fp8_rtz": Ty("u", 8),
                     "f32_to_bf8_rtz": Ty("u", 8),
                     "nop": LIT, "fma": _first_float, "ldexp": _first_float,
                     "f16_to_snorm": Ty("i", 16), "f32_to_snorm": Ty("i", 16),
                     "f16_to_unorm": Ty("u", 16), "f32_to_unorm": Ty("u", 16), "u4_to_u32": Ty("u", 32),
                     "i8_to_i32": Ty("i", 32), "i4_to_i32": Ty("i", 32),
                     "v_cvt_i16_f32": Ty("i", 16), "v_cvt_u16_f32": Ty("u", 16), "f32_to_f16_rtz": Ty("f", 16),
                     "signext_from_bit": Ty("i", 64)})
for _n in dir(__import__("emu.rtlib", fromlist=["x"])):
    if re.fullmatch(r"[fiu]\d+_to_[fiu]\d+", _n):
        RESULT_TYPES[_n] = _conv_type(_n)
    elif re.fullmatch(r"(f32|f16|bf16)_to_[fb][fp][468](_sr)?_scale", _n):
        RESULT_TYPES[_n] = Ty("u", int(_n.split("_")[2][2]))    # CDNA4's scaled conversions: the code
    elif re.fullmatch(r"[fb][fp][468]_to_(f32|f16|bf16)_scale", _n):
        RESULT_TYPES[_n] = Ty("u", 16) if _n.endswith("bf16_scale") else _conv_type(_n[:-len("_scale")])


def _is_two_over_pi(node) -> bool:
    """The pseudocode's `2.0 / PI`."""
    return (isinstance(node, Tree) and node.data == "binop" and str(node.children[1]) == "/"
            and isinstance(node.children[0], Tree) and node.children[0].data == "number"
            and float(str(node.children[0].children[0]).rstrip("F")) == 2.0
            and isinstance(node.children[2], Tree) and node.children[2].data == "name"
            and str(node.children[2].children[0]) == "PI")
