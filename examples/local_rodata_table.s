// out[i] = .Lsquares[i % 8] + .Lbias for i < n, with both constants private (.L-named), as
// LLVM's compiler output names them. A .L label is not a symbol, so each reference relocates
// against its section plus the label's offset: R_AMDGPU_REL32_LO/HI against .rodata for the
// table (s_getpc_b64 + .Lsquares@rel32@lo+4), and a .quad in .data holding .Lbias's address
// (R_AMDGPU_ABS64, applied at load) that the kernel reaches the same way and dereferences.
// Assemble: wavesmith asm examples/local_rodata_table.s -o local_rodata_table.hsaco
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl	local_lookup
	.p2align	8
	.type	local_lookup,@function
local_lookup:
	s_load_b64 s[4:5], s[0:1], 0x0           ; out
	s_load_b32 s6, s[0:1], 0x8               ; n
	s_getpc_b64 s[8:9]
	s_add_u32 s8, s8, .Lsquares@rel32@lo+4
	s_addc_u32 s9, s9, .Lsquares@rel32@hi+12
	s_getpc_b64 s[10:11]
	s_add_u32 s10, s10, .Lbias_ptr@rel32@lo+4
	s_addc_u32 s11, s11, .Lbias_ptr@rel32@hi+12
	s_load_b64 s[10:11], s[10:11], 0x0       ; &.Lbias, relocated at load
	v_lshl_add_u32 v1, s2, 6, v0             ; global id, 64 work-items per group
	v_and_b32_e32 v2, 7, v1
	v_lshlrev_b32_e32 v2, 2, v2
	global_load_b32 v3, v2, s[8:9]
	s_waitcnt lgkmcnt(0)
	s_load_b32 s12, s[10:11], 0x0            ; .Lbias
	v_cmp_gt_u32_e32 vcc_lo, s6, v1
	s_and_saveexec_b32 s7, vcc_lo
	s_cbranch_execz .Ldone
	v_lshlrev_b32_e32 v1, 2, v1
	s_waitcnt vmcnt(0) lgkmcnt(0)
	v_add_nc_u32_e32 v3, s12, v3
	global_store_b32 v1, v3, s[4:5]
.Ldone:
	s_endpgm
.Llocal_lookup_end:
	.size	local_lookup, .Llocal_lookup_end-local_lookup

	.section	.rodata,"a",@progbits
	.p2align	4
.Lsquares:
	.long	0, 1, 4, 9, 16, 25, 36, 49
.Lbias:
	.long	1000

	.data
	.p2align	3
.Lbias_ptr:
	.quad	.Lbias

	.rodata
	.p2align	6
	.amdhsa_kernel local_lookup
		.amdhsa_kernarg_size 12
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_system_sgpr_workgroup_id_x 1
		.amdhsa_system_vgpr_workitem_id 0
		.amdhsa_next_free_vgpr 4
		.amdhsa_next_free_sgpr 13
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
	.end_amdhsa_kernel

	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - { .name: out, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: n, .offset: 8, .size: 4, .value_kind: by_value }
    .group_segment_fixed_size: 0
    .kernarg_segment_align: 8
    .kernarg_segment_size: 12
    .max_flat_workgroup_size: 64
    .name: local_lookup
    .private_segment_fixed_size: 0
    .sgpr_count: 15
    .symbol: local_lookup.kd
    .vgpr_count: 4
    .wavefront_size: 32
amdhsa.target: amdgcn-amd-amdhsa--gfx1100
amdhsa.version: [1, 2]
...
	.end_amdgpu_metadata
