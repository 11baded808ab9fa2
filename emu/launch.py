"""What the hardware receives for one dispatch: the initial state of every wave.

`Dispatch` is the hardware-level launch (no code objects, no kernel arguments): where
the code starts, the grid, and which SGPRs/VGPRs the dispatcher initialises. The runtime
(runtime/device.py) builds it from a kernel descriptor; tests can build it directly.
System SGPRs follow the user SGPRs in the order the hardware writes them (LLVM's
AMDGPUUsage, "Initial Kernel Execution State"): work-group id X, Y, Z, work-group info,
private segment wave offset — each only if enabled.
"""
from __future__ import annotations

import math
import os
from dataclasses import field

import numpy as np

from isa.records import dataclass

from .options import FAST, EmuOptions
from .wave import CODES, EXEC_LO, WaveState, pack_mask


class LaunchError(ValueError):
    """A dispatch the hardware would refuse (bad sizes, too many registers)."""


DEFAULT_SECONDS = 30.0          # wall time a launch may take unless told otherwise
MAX_SCRATCH_PER_GROUP = 1 << 30     # bytes of scratch the emulator holds for one work-group


def default_seconds() -> float:
    """The time budget of a launch: $WAVESMITH_LAUNCH_SECONDS, else DEFAULT_SECONDS."""
    text = os.environ.get("WAVESMITH_LAUNCH_SECONDS", "")
    try:
        value = float(text) if text else DEFAULT_SECONDS
    except ValueError:
        raise LaunchError(f"WAVESMITH_LAUNCH_SECONDS={text!r} is not a number of seconds") from None
    if not value > 0:
        raise LaunchError(f"WAVESMITH_LAUNCH_SECONDS={text!r} must be positive")
    return value


@dataclass
class Dispatch:
    """A kernel launch as the machine runs it: grid, block, registers, user SGPRs, LDS, scratch, limits."""
    kernel: str
    entry: int                              # device address of the first instruction
    grid: tuple[int, int, int]              # work-groups per dimension
    block: tuple[int, int, int]             # work-items per work-group and dimension
    wave_size: int = 32
    vgprs: int = 256                        # VGPRs each wave has (the descriptor's allocation; CDNA: VGPRs and AGPRs)
    # CDNA's unified VGPR/AGPR file: AGPR a[n] is register accum_offset + n of the wave's
    # `vgprs` (the descriptor's accum_offset); None where the family has no AGPRs
    accum_offset: int | None = None
    user_sgprs: list[int] = field(default_factory=list)   # s0.. values, the same in every wave
    user_sgpr_count: int | None = None      # where system SGPRs start (default: len(user_sgprs))
    workgroup_id: tuple[bool, bool, bool] = (True, False, False)
    workgroup_id_ttmps: bool = False        # ids in TTMP9 (X), TTMP7 ({Z, Y}) instead (isa traits)
    workgroup_info: bool = False
    private_segment_wave_offset: bool = False
    workitem_id_dims: int = 0               # 0: x, 1: x and y, 2: x, y and z (packed in v0)
    lds_size: int = 0                       # bytes of LDS per work-group
    scratch_size: int = 0                   # bytes of private memory per work-item
    mode: int = 0                           # initial MODE register
    budget: int = 5_000_000                 # instructions any one wave may issue
    seconds: float = field(default_factory=default_seconds)    # wall time the launch may take
    progress: bool | None = None            # progress line on stderr (None: if slow and stderr is a terminal)

    def validate(self, traits=CODES) -> None:
        """Refuse what the family (`traits`: isa.Traits) cannot run: its wave sizes, VGPRs
        and SGPRs per wave."""
        if self.wave_size not in traits.wave_sizes:
            raise LaunchError(f"{self.kernel}: wave size {self.wave_size} "
                              f"(must be {' or '.join(map(str, sorted(traits.wave_sizes)))})")
        for what, v in (("grid", self.grid), ("block", self.block)):
            if len(v) != 3 or any(int(x) < 1 for x in v):
                raise LaunchError(f"{self.kernel}: {what} {tuple(v)} must be three sizes >= 1")
        items = int(np.prod(self.block))
        if items > 1024:
            raise LaunchError(f"{self.kernel}: block {tuple(self.block)} has {items} work-items (at most 1024)")
        if not 1 <= self.vgprs <= traits.vgprs + traits.agprs:
            raise LaunchError(f"{self.kernel}: {self.vgprs} VGPRs per wave (1..{traits.vgprs + traits.agprs})")
        if self.accum_offset is not None and not (traits.agprs and 0 <= self.accum_offset <= self.vgprs):
            raise LaunchError(f"{self.kernel}: accum_offset {self.accum_offset} " + (
                f"outside the {self.vgprs} registers" if traits.agprs else f"on {traits.family}, which has no AGPRs"))
        n = self.user_sgpr_count if self.user_sgpr_count is not None else len(self.user_sgprs)
        if n + self.system_sgprs_for_ids + self.workgroup_info + self.private_segment_wave_offset > traits.sgprs:
            raise LaunchError(f"{self.kernel}: {n} user SGPRs plus system SGPRs exceed the {traits.sgprs} SGPRs")
        if self.lds_size > 65536:
            raise LaunchError(f"{self.kernel}: {self.lds_size} bytes of LDS per work-group (at most 64 KiB)")
        scratch = self.scratch_size * self.waves_per_group * self.wave_size
        if scratch > MAX_SCRATCH_PER_GROUP:
            raise LaunchError(f"{self.kernel}: {self.scratch_size} bytes of scratch per work-item are "
                              f"{scratch / (1 << 30):.3g} GiB per work-group (the emulator holds at most "
                              f"{MAX_SCRATCH_PER_GROUP >> 30} GiB)")
        if not self.budget > 0 or not self.seconds > 0:
            raise LaunchError(f"{self.kernel}: budget {self.budget} instructions and {self.seconds} s must be positive")

    @property
    def system_sgprs_for_ids(self) -> int:
        """SGPRs the work-group ids take after the user SGPRs (none when they are in TTMPs)."""
        return 0 if self.workgroup_id_ttmps else sum(self.workgroup_id)

    @property
    def waves_per_group(self) -> int:
        return -(-int(math.prod(self.block)) // self.wave_size)      # Python ints: asked often per launch

    @property
    def groups(self) -> int:
        return int(math.prod(self.grid))


def _ttmp_ids(st: WaveState, d: Dispatch, first_group: int, groups: int, per: int) -> None:
    """Work-group ids where RDNA4 puts them for every compute wave: TTMP9 = X, TTMP7 = {Z[15:0],
    Y[15:0]}, TTMP8 = {DebugMark 0, GridYZvalid 1, waveIDinGroup[4:0], dispatchIndex 0}."""
    gx, gy, _ = d.grid
    gid = np.arange(first_group, first_group + groups)
    x, y, z = gid % gx, (gid // gx) % gy, gid // (gx * gy)
    t = CODES.ttmp_base
    wave_in_group = np.arange(per, dtype=np.int64)[None, :]
    for code, value in ((t + 9, x[:, None]), (t + 7, ((z & 0xFFFF) << 16 | (y & 0xFFFF))[:, None]),
                        (t + 8, 1 << 30 | wave_in_group << 25)):
        st.sgpr[code].reshape(groups, per)[:] = np.broadcast_to(value, (groups, per)).astype(np.uint32)
        st.sgpr_written[code] = True


def initial_state(d: Dispatch, first_group: int, groups: int,
                  spare: WaveState | None = None, options: EmuOptions = FAST, codes=CODES) -> tuple[WaveState, np.ndarray]:
    """Wave state for work-groups [first_group, first_group + groups) (linear ids, x fastest),
    and the work-group (chunk-local) of every wave. A `spare` state of the same shape (an
    ended chunk's) is reset and reused instead of allocating new register files (options:
    write_marks, lazy_zeroing, keep_workitem_ids); codes: the family's traits (M0, NULL)."""
    L, per = d.wave_size, d.waves_per_group
    nw = groups * per
    # what v0 holds after setup: the same for every chunk of a launch and for launches of one
    # shape, so a reused state whose v0 the kernel never wrote keeps it (4 bytes per lane)
    ids_key = (tuple(d.block), d.workitem_id_dims, L, groups)
    n_user = d.user_sgpr_count if d.user_sgpr_count is not None else len(d.user_sgprs)
    n_system = d.system_sgprs_for_ids + d.workgroup_info + d.private_segment_wave_offset
    if spare is not None and (spare.waves, spare.lanes, spare.vgprs) == (nw, L, d.vgprs):
        keep_ids = spare.v0_ids == ids_key and not spare.vgpr_written[0] and options.keep_workitem_ids \
            and options.write_marks
        # v0 is kept or written below in every lane; these SGPRs are written in every wave
        rewritten = {*range(len(d.user_sgprs)), *range(n_user, n_user + n_system), EXEC_LO, EXEC_LO + L // 32 - 1}
        st = spare.reset(rewritten_vgprs=1, rewritten_sgprs=rewritten, defer=options.lazy_zeroing,
                         everything=not options.write_marks)
    else:
        keep_ids, st = False, WaveState(nw, L, d.vgprs, codes)
    gx, gy, gz = d.grid
    user = np.array(d.user_sgprs, np.uint64).astype(np.uint32)
    st.sgpr[:len(user)] = user[:, None]
    st.sgpr_written[:len(user)] = True
    if options.uniform_sgprs:
        st.note_uniform(slice(0, st.waves), 0, user)
    s = n_user
    gid = None
    if d.workgroup_id_ttmps:
        _ttmp_ids(st, d, first_group, groups, per)
    for axis, on in enumerate(d.workgroup_id):
        if on and not d.workgroup_id_ttmps:
            if gid is None:
                gid = np.arange(first_group, first_group + groups)
            xyz = (gid % gx, (gid // gx) % gy, gid // (gx * gy))[axis]
            st.sgpr[s].reshape(groups, per)[:] = xyz[:, None]     # each group's id to its waves
            s += 1
    if d.workgroup_info:    # bits 5:0 waves in the group, the rest are hardware details left 0
        st.sgpr[s] = per
        s += 1
    if d.private_segment_wave_offset:   # scratch is per lane here (emu/memory.py), the offset is unused
        st.sgpr[s] = 0
        s += 1
    st.sgpr_written[n_user:s] = True
    # work-item ids: lane l of wave w is local linear id w*L + l. Every work-group has the
    # same pattern: compute it for one group and repeat it.
    bx, by, bz = d.block
    local = np.arange(per * L).reshape(per, L)
    valid = local < bx * by * bz
    if not keep_ids:
        x, y, z = local % bx, (local // bx) % by, local // (bx * by)
        dims = d.workitem_id_dims
        v0 = np.where(valid, x | (y << 10 if dims >= 1 else 0) | (z << 20 if dims >= 2 else 0), 0).astype(np.uint32)
        st.vgpr[0].reshape(groups, per, L)[:] = v0      # broadcast into the register: no tiled copy
    # v0 holds ids, not zeros, while its written mark is clear (WaveState.v0_ids)
    st.vgpr_written[0], st.v0_ids = False, ids_key
    exec_bits = pack_mask(valid)                          # (per, 1): the same in every group
    for k in range(st.mask_dwords):
        st.sgpr[EXEC_LO + k].reshape(groups, per)[:] = (exec_bits[:, 0] >> np.uint64(32 * k)).astype(np.uint32)
    st.sgpr_written[EXEC_LO:EXEC_LO + st.mask_dwords] = True
    st.pc[:] = d.entry
    st.mode[:] = d.mode
    st.mode_uniform = int(d.mode) if options.uniform_mode else None
    if st.wave_group is None or st.wave_group[0] != per:
        st.wave_group = per, st.wave_ids // per           # the chunk-local group of each wave
    return st, st.wave_group[1]
