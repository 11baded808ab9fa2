"""Statements of the pseudocode -> lines of Python: declarations, predicated if/elsif/else
(`where` under a per-lane condition), loops with per-lane break masks, and assignments to
operands (whole, typed, bit slices), lane bits, locals, memory and register files."""
from __future__ import annotations

from lark import Token, Tree

from .types import OPERANDS, SOURCE_ARRAY, LANE_MASKS, LANE_ID_NAMES, LIT, Ty, Var, Unsupported, type_of_field, type_of_decl, is_name, is_const
from ..semantics import Operand


class Statements:
    """Mixin of Translator: statement translation and every kind of write."""

    # ---------- statements ----------
    def stmts(self, tree: Tree):
        for st in tree.children:
            self.stmt(st)
            if self.loop_breaks and self.loop_breaks[-1] and st.data in ("if_",):
                pass

    def stmt(self, st: Tree):
        kind = st.data
        if kind == "assign":
            self.assign(st)
        elif kind == "chain_assign":
            self.chain_assign(st)
        elif kind == "declare":
            name = str(st.children[0])
            ty = type_of_decl(str(st.children[1]))
            if len(st.children) > 2 and name == SOURCE_ARRAY:
                n = int(str(st.children[2]))
                self.vars[name] = Var(Ty("u", ty.bits), n)
                self.emit(f"{self.pyname(name)} = [{', '.join(self.expr(Tree('name', [f'S{i}']))[0] for i in range(n))}]")
            elif len(st.children) > 2 and name in self.tables:
                # a constant table listed in the description: its entries, exact in the declared type
                n = int(str(st.children[2]))
                if len(self.tables[name]) != n or ty.kind != "f":
                    self.fail(f"declared table {name}[{n}] does not match the description's "
                              f"{len(self.tables[name])} entries", st)
                self.vars[name] = Var(ty, n)
                self.emit(f"{self.pyname(name)} = [{', '.join(f'R.FLOAT[{ty.bits}]({v!r})' for v in self.tables[name])}]")
            elif len(st.children) > 2:
                n = int(str(st.children[2]))
                if name not in self.assigned:
                    self.fail(f"the pseudocode reads table {name}[{n}] without giving its entries", st)
                self.vars[name] = Var(ty, n)
                self.emit(f"{self.pyname(name)} = [{self.zero(ty)}] * {n}")
            elif name in OPERANDS:
                pass        # `declare OFFSET : 16'U` documents an operand's width
            elif ty.bits > 64 and ty.bits % 32 == 0:
                # a wide local (CDNA4's `declare tmp : 192'B` of 32 fp6 codes): uint32 dwords, as
                # wide operands are held, written and read by bit ranges (rtlib.dw_set_field)
                self.vars[name] = Var(Ty("dw", ty.bits))
                self.emit(f"{self.pyname(name)} = R.dw_zeros(ctx, {ty.bits // 32})")
            else:
                self.vars[name] = Var(ty)
                self.emit(f"{self.pyname(name)} = {self.zero(ty)}")
        elif kind == "note":
            pass            # a quoted remark ("Wait for all instructions to complete")
        elif kind == "if_":
            self.if_(st)
        elif kind == "for_":
            self.for_(st)
        elif kind == "expr_stmt":
            e = st.children[0]
            if not (isinstance(e, Tree) and e.data == "call"):
                self.fail("statement is not an assignment or a call", st)
            code, _ = self.expr(e)
            self.emit(code)
        elif kind == "break_":
            if not self.loop_breaks:
                self.fail("break outside a loop", st)
            b = self.loop_breaks[-1]
            self.emit(f"{b} = np.asarray({b}) | np.asarray({self.pred or 'True'})")
        elif kind == "return_":
            if not self.returns:
                self.fail("return outside a lambda", st)
            ret, done = self.returns[-1]
            code, _ = self.expr(st.children[0])
            p = self.pred or "True"
            self.emit(f"{ret} = R.where(R.AND({p}, ~{done}), {code}, {ret})")
            self.emit(f"{done} = {done} | R.AND({p}, ~{done})")
        elif kind in ("c_for", "while_"):
            # DS_SWIZZLE_B32's `for (i = 0; i < 64; i++)` over the wave's lanes (thread_in[j]) and
            # RDNA4's S_BARRIER_WAIT `while` (an idle until the barrier completes) are whole-wave
            # code, not per-lane statements: emu/handwritten/ runs them
            self.fail(f"{'a C-like for loop over the lanes' if kind == 'c_for' else 'a while loop'} "
                      f"needs a hand-written semantic", st)
        elif kind == "eval_":
            self.fail("eval \"...\" (matrix pseudocode) needs a hand-written semantic", st)
        else:
            self.fail(f"statement {kind}", st)

    def if_(self, st: Tree):
        cond, then, elifs = st.children[0], st.children[1], st.children[2]
        els = st.children[3] if len(st.children) > 3 else None
        branches = [(cond, then)] + [(elifs.children[i], elifs.children[i + 1])
                                    for i in range(0, len(elifs.children), 2)]
        outer = self.pred
        taken = self.fresh("taken")
        self.emit(f"{taken} = False")
        for c, body in branches:
            code, ty = self.expr(c)
            cv = self.fresh("c")
            self.emit(f"{cv} = R.AND(R.AND({outer or 'None'}, ~R.truth({taken})), R.truth({code}))")
            self.emit(f"{taken} = R.truth({taken}) | {cv}")
            self.pred = cv
            self.stmts(body)
            self.pred = outer
        if els is not None:
            cv = self.fresh("c")
            self.emit(f"{cv} = R.AND({outer or 'None'}, ~R.truth({taken}))")
            self.pred = cv
            self.stmts(els)
            self.pred = outer

    def for_(self, st: Tree):
        var, lo, hi, body = str(st.children[0]), st.children[1], st.children[2], st.children[3]
        lo_c, _ = self.expr(lo)
        hi_c, _ = self.expr(hi)
        py = self.pyname(var)
        self.vars[var] = Var(LIT)
        has_break = any(t.data == "break_" for t in body.iter_subtrees())
        brk = None
        if has_break:
            brk = self.fresh("brk")
            self.emit(f"{brk} = False")
        self.emit(f"for {py} in range(R.loop_bound({lo_c}), R.loop_bound({hi_c}) + 1):")
        self.indent += 1
        outer = self.pred
        if brk:
            self.loop_breaks.append(brk)
            for st2 in body.children:
                pv = self.fresh("p")
                self.emit(f"{pv} = R.AND({outer or 'None'}, ~np.asarray({brk}))")
                self.pred = pv
                self.stmt(st2)
            self.loop_breaks.pop()
        else:
            self.stmts(body)
        self.pred = outer
        self.emit("pass")
        self.indent -= 1

    # ---------- assignment ----------
    def assign(self, st: Tree):
        target = st.children[0]
        if len(st.children) == 2:           # x++
            op, value = "+=", Tree("number", [Token("NUMBER", "1")])
        else:
            op, value = str(st.children[1]), st.children[2]
        if isinstance(target, Tree) and target.data == "lambda_":
            self.fail("lambda as target", st)
        if isinstance(value, Tree) and value.data == "lambda_":
            self.lambdas[str(target.children[0])] = value
            return
        if is_name(target, {"ROUND_MODE"}):
            # `ROUND_MODE = ROUND_TOWARD_ZERO; ...; ROUND_MODE = prev_mode`: conversions in
            # between round toward zero (R.<conversion>_rtz); anything else restores RNE
            self.round_mode = "rtz" if is_name(value, {"ROUND_TOWARD_ZERO"}) else None
            return
        if target.data == "field" and is_name(target.children[0], {"TRAPSTS"}):
            # RDNA4's min/max record a signalling NaN as `TRAPSTS.INVALID = 1`: a sticky exception
            # status bit for a trap handler; the emulator models no float exception status or traps
            return
        if op == "=" and target.data != "concat_target" and self.narrow and self.narrow_assign(target, value):
            return
        if op != "=":
            bin_op = op[:-1]
            code, ty = self.binop(bin_op, self.expr(target), self.expr(value))
        else:
            code, ty = self.expr(value)
        if target.data == "concat_target":
            parts = [self.lvalue_type(p) for p in target.children]
            v = self.fresh("v")
            self.emit(f"{v} = R.split({code}, {[t.bits for t in parts]})")
            for i, (p, t) in enumerate(zip(target.children, parts)):
                self.write(p, f"{v}[{i}]", Ty("u", t.bits))
            return
        self.write(target, code, ty)

    def chain_assign(self, st: Tree):
        """`a = b = value` (CDNA3's V_CMPX: EXEC.u64[laneId] = D0.u64[laneId] = ...): the value
        once into a local, then each target from it, innermost first."""
        targets, node = [st.children[0]], st.children[2]
        while isinstance(node, Tree) and node.data == "chain":
            targets.append(node.children[0])
            node = node.children[1]
        local = Token("NAME", self.fresh("chain"))
        self.assign(Tree("assign", [Tree("name", [local]), Token("EQUAL", "="), node]))
        for target in reversed(targets):
            self.assign(Tree("assign", [target, Token("EQUAL", "="), Tree("name", [local])]))

    def lvalue_type(self, node) -> Ty:
        if node.data == "field":
            t = type_of_field(str(node.children[1]))
            if t:
                return t
        return Ty("u", 32)

    def write(self, target: Tree, code: str, ty: Ty):
        """Store `code` (of type ty) into the location `target` names."""
        chain = []
        node = target
        while node.data in ("field", "index", "slice"):
            chain.append(node)
            node = node.children[0]
        chain.reverse()
        if node.data == "mem":
            return self.write_mem(node, chain, code, ty, target)
        if node.data == "index" or node.data != "name":
            pass
        if node.data != "name":
            # VGPR[lane][reg] / SGPR[...] / HW_REGISTERS[...]: node is the innermost index
            self.fail("assignment target", target)
        name = str(node.children[0])
        if name == "VGPR" and _own_destination(chain):
            # VGPR[laneId][VDST.u32][hi : lo].T = v: bits of this lane's D0 (CDNA4's scaled
            # conversions' `[dstbyte + 7 : dstbyte].fp8 = tmp`), the rest kept; written as D0 is,
            # EXEC and all (isa.gen.effects reads VDST as D0 too)
            return self.write_operand("D0", chain[2:], code, ty, target)
        if name in ("VGPR", "SGPR", "HW_REGISTERS"):
            return self.write_regfile(name, chain, code, ty, target)
        # lane-bit write: X.u64[laneId] = v
        if name in LANE_MASKS and not self.scalar and self._is_lane_bit(chain):
            return self.write_lane_bit(name, code)
        if name == "D1" and not self.scalar:       # carry-out of v_mad_u64_u32: one bit per lane
            return self.write_lane_bit(name, code)
        if name == "VCC" and not self.scalar and not chain:
            return self.write_lane_bit(name, f"R.raw({code}) & R.U64(1)")
        if name in OPERANDS:
            return self.write_operand(name, chain, code, ty, target)
        return self.write_local(name, chain, code, ty, target)

    def _is_lane_bit(self, chain) -> bool:
        idx = [c for c in chain if c.data == "index"]
        return len(idx) == 1 and chain[-1].data == "index" and is_name(idx[0].children[1], LANE_ID_NAMES)

    def write_lane_bit(self, name: str, code: str):
        var = f"{name}__lanes"
        self.writes[name] = Operand(name, 64 if name != "D1" else 1, "u64" if name != "D1" else "u1", lane_bit=True)
        if name not in self.lane_writes:
            self.lane_writes.add(name)
            if self.pred is None:       # every lane written: no zeros to start from
                self.emit(f"{var} = R.truth({code})")
                return
            self.emit(f"{var} = np.zeros(ctx.shape, bool)")
        self.emit(f"{var} = R.where({self.pred or 'None'}, R.truth({code}), {var})")

    def guard(self, var: str, new: str) -> str:
        return new if self.pred is None else f"R.where({self.pred}, {new}, {var})"

    def write_operand(self, name, chain, code, ty, target):
        base = self.operand_ty(name)
        if not chain and ty.kind in ("u", "i", "f") and ty.bits > base.bits:
            self.wider_values[name] = max(self.wider_values.get(name, 0), ty.bits)
        wide = base.bits > 64
        if name not in self.defined_operands:
            self.define_operand(name, partial=(self._partial(chain, base) or self.pred is not None) and not wide)
        self.writes.setdefault(name, self.operand_write(name, base))
        new = self.store_chain(name, base, chain, code, ty, target, wide, narrow=True)
        fields = [type_of_field(str(c.children[1])) for c in chain if c.data == "field"]
        t = fields[-1] if len(fields) == len(chain) and fields else base if not chain else None
        if name == "D0" and self.pred is None and t == ty == Ty("f", 32) and _whole_call(code, "R.fma"):
            # the whole float result: fma rounds straight into the destination register
            self.emit_direct(f"{name} = R.float_into(ctx, 'D0', 32, lambda out: {code[:-1]}, out=out))",
                             f"{name} = {new}")
            return
        self.emit(f"{name} = {self.guard(name, new)}")

    def operand_write(self, name, base) -> Operand:
        return Operand(name, base.bits, self._type_name(name, base))

    def _partial(self, chain, base) -> bool:
        """Does this write leave some of the operand's bits as they were?"""
        for c in chain:
            if c.data == "index":
                return True
            if c.data == "slice":
                if not (is_const(c.children[1]) and is_const(c.children[2])):
                    return True
                hi, lo = (int(str(c.children[k].children[0]), 0) for k in (1, 2))
                if min(hi, lo) != 0 or max(hi, lo) + 1 < base.bits:
                    return True
        return False

    def _type_name(self, name, base):
        t = self.optypes.get(name)
        return t.replace("pk_", "") if t else str(base)

    def define_operand(self, name, partial):
        """First write to an operand: start from its old value if bits survive, else zeros.
        Inside a loop the start goes before it (the function's prologue): emitted in the body,
        every iteration would start again from the old value (s_bitreplicate_b64_b32 sets its
        bits one by one in a loop)."""
        self.defined_operands.add(name)
        base = self.operand_ty(name)
        emit = self.emit if self.indent == 1 else self.prologue.append
        if partial and name not in self.reads and name not in self.int_fields:
            kind = self._type_name(name, base)       # (the bits kept are raw bits, not a narrower float)
            kind = f"u{base.bits}" if kind in ("f16", "f32") and int(kind[1:]) < base.bits else kind
            self.reads[name] = Operand(name, base.bits, kind)
            emit(f"{name} = R.operand(ctx, {name!r}, {base.bits}, {self.name!r})")
        elif name not in self.reads:
            emit(f"{name} = " + (f"R.dw_zeros(ctx, {base.bits // 32})" if base.bits > 64 else "R.U64(0)"))

    def store_chain(self, var, base, chain, code, ty, target, wide, narrow=False):
        """Source of var's new raw value after writing `code` through the accessor chain.
        narrow: var is an operand, whose whole new float value may keep its own width."""
        # forms: [] | [.T] | [slice] | [slice .T] | [.T slice] | [index] | [.T index] | [index .T]
        access = [c for c in chain if c.data == "field"]
        sel = [c for c in chain if c.data in ("slice", "index")]
        tty = type_of_field(str(access[-1].children[1])) if access else None
        if access and tty is None:
            self.fail(f"field .{access[-1].children[1]} in an assignment", target)
        if tty is not None and tty.kind in ("fp8", "bf8"):
            if ty != Ty("u", 8):        # a code a conversion gave (rtlib.f32_to_fp8_scale ...)
                self.fail(f"a {ty} value written as .{tty.kind}", target)
            tty = ty
        if len(sel) > 1:
            self.fail("more than one bit selection in an assignment", target)
        if not sel:
            t = tty or base
            if tty is None and ty.kind == "f" and t.kind != "f" and ty.bits == t.bits:
                t = ty              # X = float value, no accessor: the value's bits (RETURN_DATA = tmp)
            if wide:
                self.fail("whole-value write of a wide operand", target)
            keep = ", narrow=True" if narrow and t.kind == "f" else ""
            return f"{self.store_fn(t)}({self.conv(code, ty, t)}, {t.kind!r}, {min(t.bits, 64) if t.kind != 'f' else t.bits}{keep})"
        s = sel[0]
        if s.data == "slice":
            hi, _ = self.expr(s.children[1])
            lo, _ = self.expr(s.children[2])
            width_t = tty if (tty and chain.index(s) < chain.index(access[-1])) else None
            vt = width_t or tty or Ty("u", self._const_width(s))
        else:
            hi, _ = self.expr(s.children[1])
            lo = hi
            vt = Ty("u", 1)
        if wide and ty.kind == "dw":          # D0[191 : 0] = tmp.b192: a wide local's dwords
            bits = self.slice_width(s, target)
            if bits != ty.bits:
                self.fail(f"a {ty.bits}-bit value written to {bits} bits", target)
            return f"R.dw_set_field({var}, {lo}, {bits}, {code})"
        val = f"{self.store_fn(vt)}({self.conv(code, ty, vt)}, {vt.kind!r}, {vt.bits})"
        if wide:
            lo_c, bits = self._const_slice(s, target)
            return f"R.dw_set({var}, {lo_c}, {bits}, {val})"
        return f"R.set_bits({var}, {hi}, {lo}, {val})"

    def store_fn(self, t: Ty) -> str:
        """The rtlib function that fits a value into a location of type t: R.store wraps,
        R.saturate clamps (integer clamp, see Translator.saturate)."""
        return "R.saturate" if self.saturate and t.kind in ("u", "i") and t.bits < 64 else "R.store"

    def slice_width(self, s, target) -> int:
        """hi - lo + 1 of a bit range whose bounds differ by a constant: numbers, or the same
        expression plus numbers (`dOffset + 11 : dOffset + 6`, `sOffset + 31 : sOffset`)."""
        (hb, hc), (lb, lc) = (_base_and_offset(s.children[k]) for k in (1, 2))
        if hb != lb:
            self.fail("a bit range whose width is not constant", target)
        return hc - lc + 1

    def _const_width(self, s):
        try:
            return self._const_slice(s, s)[1]
        except Unsupported:
            return 64

    def _const_slice(self, s, target):
        try:
            hi = int(str(s.children[1].children[0]), 0)
            lo = int(str(s.children[2].children[0]), 0)
        except (AttributeError, ValueError, IndexError):
            self.fail("bit range of a wide operand must be constant", target)
        if lo % 32 or (hi - lo + 1) not in (32, 64):
            self.fail(f"bit range [{hi}:{lo}] of a wide operand is not dword aligned", target)
        return lo, hi - lo + 1

    def write_local(self, name, chain, code, ty, target):
        py = self.pyname(name)
        var = self.vars.get(name)
        if var is not None and var.array:
            if not chain or chain[0].data != "index":
                self.fail(f"whole-array assignment to {name}", target)
            idx, _ = self.expr(chain[0].children[1])
            if len(chain) > 1:
                self.fail("sub-element write of an array element", target)
            new = self.conv(code, ty, var.ty)
            self.emit(f"{py}[R.loop_bound({idx})] = {self.guard(f'{py}[R.loop_bound({idx})]', new)}")
            return
        if var is not None and var.ty.kind == "dw":
            return self.write_wide_local(py, var, chain, code, ty, target)
        if not chain:
            if var is None:
                vty = ty if ty.kind != "lit" else ty
                self.vars[name] = Var(vty)
                new = code
                if self.pred is not None:
                    self.emit(f"{py} = R.where({self.pred}, {new}, 0)")
                else:
                    self.emit(f"{py} = {new}")
                return
            new = self.conv(code, ty, var.ty)
            if var.ty.kind in "ui" and var.ty.bits < 64 and name in self.declared_sized:
                new = f"R.cast_int({new}, {var.ty.kind == 'i'}, {var.ty.bits})"
            self.emit(f"{py} = {self.guard(py, new)}")
            return
        if var is None:
            self.vars[name] = Var(Ty("u", 64))
            self.emit(f"{py} = R.U64(0)")
            var = self.vars[name]
        old = f"R.raw({py})"
        new = self.store_chain(old, var.ty, chain, code, ty, target, False)
        if var.ty.kind == "lit":
            var.ty = Ty("u", 64)
        self.emit(f"{py} = {self.guard(py, self.conv(new, Ty('u', 64), var.ty))}")

    def write_wide_local(self, py, var, chain, code, ty, target):
        """`tmp[hi : lo].T = value` into a wide local (dwords): the range's bits, its bounds
        any expressions (a loop's dOffset) whose difference is constant."""
        if self.pred is not None:
            self.fail("a conditional write of a wide local", target)
        sel = [c for c in chain if c.data == "slice"]
        fields = [c for c in chain if c.data == "field"]
        if len(sel) != 1 or len(chain) != len(sel) + len(fields) or chain[0] is not sel[0]:
            self.fail("a wide local is written by one bit range [hi : lo] (and a type)", target)
        bits = self.slice_width(sel[0], target)
        lo, _ = self.expr(sel[0].children[2])
        t = type_of_field(str(fields[-1].children[1])) if fields else Ty("u", bits)
        if t is None or ty.kind != "dw" and t.bits != bits:
            self.fail(f"a {bits}-bit range of a wide local written as .{fields[-1].children[1]}", target)
        val = code if ty.kind == "dw" else f"{self.store_fn(t)}({self.conv(code, ty, t)}, {t.kind!r}, {t.bits})"
        self.emit(f"{py} = R.dw_set_field({py}, {lo}, {bits}, {val})")

    def write_mem(self, node, chain, code, ty, target):
        addr, _ = self.expr(node.children[0])
        nbytes = self.mem_width(chain, target)
        self.mem_write = True
        # MEM[a].f = x stores x's float bits (f32/f64 atomics), any other accessor an integer
        fields = [type_of_field(str(c.children[1])) for c in chain if c.data == "field"]
        kind = "f" if fields and fields[-1].kind == "f" else "u"
        self.emit(f"R.mem_store(ctx, {addr}, {nbytes}, R.store({self.conv(code, ty, Ty(kind, nbytes * 8))}, '{kind}', "
                  f"{nbytes * 8}), {self.pred or 'None'})")

    def mem_width(self, chain, node) -> int:
        bits = 32
        for c in chain:
            if c.data == "field":
                t = type_of_field(str(c.children[1]))
                if t is None:
                    self.fail(f"MEM field .{c.children[1]}", node)
                bits = t.bits
            elif c.data == "slice":
                bits = self._slice_bits(c, node)
        if bits not in (8, 16, 32, 64):
            self.fail(f"{bits}-bit memory access", node)
        return bits // 8

    def _slice_bits(self, c, node):
        try:
            return int(str(c.children[1].children[0]), 0) - int(str(c.children[2].children[0]), 0) + 1
        except (AttributeError, ValueError):
            self.fail("non-constant slice of MEM", node)

    def write_regfile(self, name, chain, code, ty, target):
        self.cross_lane = True
        idx = [c for c in chain if c.data == "index"]
        if name == "VGPR":
            if len(idx) != 2:
                self.fail("VGPR[lane][reg] needs two indices", target)
            lane, _ = self.expr(idx[0].children[1])
            reg, _ = self.expr(idx[1].children[1])
            self.emit(f"R.vgpr_write(ctx, {reg}, {lane}, R.store({self.conv(code, ty, Ty('u', 32))}, 'u', 32), "
                      f"{self.pred or 'None'})")
        else:
            reg, _ = self.expr(idx[0].children[1])
            if name == "SGPR":     # SGPR[addr].b64 = x writes the pair addr, addr + 1 (s_movreld_b64)
                fields = [type_of_field(str(c.children[1])) for c in chain if c.data == "field"]
                dwords = 2 if fields and fields[-1] is not None and fields[-1].bits == 64 else 1
                self.emit(f"R.sgpr_write(ctx, {reg}, R.raw({code}), {self.pred or 'None'}, {dwords})")
            else:
                self.emit(f"R.hwreg_write(ctx, {reg}, R.raw({code}), {self.pred or 'None'})")

    # ---------- expressions ----------
    def conv(self, code: str, src: Ty, dst: Ty) -> str:
        """Value conversion for assignment into a location of type dst."""
        if src.kind == dst.kind or dst.kind in ("lit",):
            return code
        if dst.kind == "f":
            if src.kind == "lit":
                return f"R.F({code}, {dst.bits})"
            if src.kind in ("u", "i", "bool") and src.kind != "f":
                return f"R.F({code}, {dst.bits})"
            return code
        if src.kind == "f" and dst.kind in ("u", "i"):
            return f"R.to_int({code}, {dst.kind == 'i'}, {dst.bits})"
        if src == Ty("f", 32) and dst.kind == "bf":     # D0[15 : 0].bf16 = tmp.bf16: the value's bits
            return f"R.f32_to_bf16({code})"
        return code


def _whole_call(code: str, fn: str) -> bool:
    """Is `code` one call of fn (`R.fma(a, b, c)`), not an expression that merely starts
    with one (`R.fma(a, b, c) + R.x(d)`)?"""
    if not code.startswith(fn + "(") or not code.endswith(")"):
        return False
    depth = 0
    for i, ch in enumerate(code[len(fn):], len(fn)):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return i == len(code) - 1
    return False


def _base_and_offset(node):
    """(the non-constant part, the constant added): `x + 5` -> (x, 5), `7` -> (None, 7),
    `x` -> (x, 0)."""
    if is_const(node):
        try:
            return None, int(str(node.children[0]), 0)
        except ValueError:
            return node, 0
    if isinstance(node, Tree) and node.data == "binop" and str(node.children[1]) in ("+", "-") \
            and is_const(node.children[2]):
        base, c = _base_and_offset(node.children[0])
        try:
            k = int(str(node.children[2].children[0]), 0)
        except ValueError:
            return node, 0
        return base, c + (k if str(node.children[1]) == "+" else -k)
    return node, 0


def _own_destination(chain) -> bool:
    """[laneId][VDST.u32] and one bit range (and a type) after it: this lane's D0 in part."""
    idx = [c for c in chain[:2] if c.data == "index"]
    if len(idx) != 2 or len(chain) < 3 or chain[2].data != "slice" \
            or any(c.data != "field" for c in chain[3:]):
        return False
    reg = idx[1].children[1]
    return is_name(idx[0].children[1], LANE_ID_NAMES) and isinstance(reg, Tree) and reg.data == "field" \
        and is_name(reg.children[0], {"VDST"}) and str(reg.children[1]) == "u32"
