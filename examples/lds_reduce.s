// Sum 256 floats per work-group through LDS: a tree of halving strides with barriers,
// one partial sum per work-group written to out[group id].
	.amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
	.amdhsa_code_object_version 5
	.text
	.globl	lds_reduce
	.p2align	8
	.type	lds_reduce,@function
lds_reduce:
	s_load_b128 s[4:7], s[0:1], 0x0          ; in, out
	v_lshl_add_u32 v1, s2, 8, v0
	v_lshlrev_b32_e32 v1, 2, v1
	v_lshlrev_b32_e32 v4, 2, v0              ; this lane's LDS slot
	s_waitcnt lgkmcnt(0)
	global_load_b32 v2, v1, s[4:5]
	s_waitcnt vmcnt(0)
	ds_store_b32 v4, v2
	s_mov_b32 s8, 128                        ; stride in elements
.Lstep:
	s_waitcnt lgkmcnt(0)
	s_barrier
	v_cmp_gt_u32_e32 vcc_lo, s8, v0
	s_and_saveexec_b32 s9, vcc_lo
	s_cbranch_execz .Lskip
	s_lshl_b32 s10, s8, 2
	v_add_nc_u32_e32 v5, s10, v4
	ds_load_b32 v2, v4
	ds_load_b32 v3, v5
	s_waitcnt lgkmcnt(0)
	v_add_f32_e32 v2, v2, v3
	ds_store_b32 v4, v2
.Lskip:
	s_or_b32 exec_lo, exec_lo, s9
	s_lshr_b32 s8, s8, 1
	s_cmp_lg_u32 s8, 0
	s_cbranch_scc1 .Lstep
	v_cmp_eq_u32_e32 vcc_lo, 0, v0
	s_and_saveexec_b32 s9, vcc_lo
	s_cbranch_execz .Lend
	s_waitcnt lgkmcnt(0)
	ds_load_2addr_b32 v[2:3], v4 offset1:1
	ds_load_b32 v6, v4 offset:1020
	s_lshl_b32 s10, s2, 2
	s_add_u32 s6, s6, s10
	s_addc_u32 s7, s7, 0
	v_mov_b32_e32 v7, 0
	s_waitcnt lgkmcnt(0)
	v_add_f32_e32 v2, v2, v3
	global_store_b32 v7, v2, s[6:7]
.Lend:
	s_endpgm
.Llds_reduce_end:
	.size	lds_reduce, .Llds_reduce_end-lds_reduce

	.rodata
	.p2align	6
	.amdhsa_kernel lds_reduce
		.amdhsa_group_segment_fixed_size 1024
		.amdhsa_kernarg_size 16
		.amdhsa_user_sgpr_kernarg_segment_ptr 1
		.amdhsa_next_free_vgpr 8
		.amdhsa_next_free_sgpr 11
		.amdhsa_float_denorm_mode_32 3
		.amdhsa_float_denorm_mode_16_64 3
	.end_amdhsa_kernel
